package callgrind

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// TestGoSyscalls: a dump's system calls are those booked to the own lines
// of the syscall packages' functions (5 here: 3 by Syscall6, 2 by x/sys's
// assembly), not the runtime's (its clock reads under valgrind, its
// monitor's sleeps), not those callgrind booked on a loop function while
// another thread's call returned, and a syscall function's call of
// another is not counted twice.
func TestGoSyscalls(t *testing.T) {
	text := "events: Ir sysCount\n" +
		"fn=(1) internal/runtime/syscall/linux.Syscall6\n10 40 3\n" +
		"fn=(2) runtime.nanotime1.abi0\n5 9 7\n" +
		"fn=(3) github.com/loopbench/loopbench.(*Loop).CallLater\n20 100 2\n" +
		"fn=(4) syscall.Syscall6\n30 12\ncfn=(1)\ncalls=3 10\n31 40 3\n" +
		"fn=(5) golang.org/x/sys/unix.RawSyscallNoError.abi0\n40 8 2\n" +
		"fn=(6) runtime.sysmon\n50 20\ncfn=(7) runtime.usleep.abi0\ncalls=1 60\n51 30 1\n" +
		"fn=(7)\n60 30 1\n" +
		"totals: 219 15\n"
	d, err := parseDump(text, map[string]string{})
	if err != nil {
		t.Fatal(err)
	}
	if d.Counts.SysCount != 5 || d.Counts.Ir != 219-50 {
		t.Fatalf("counts %+v: want 5 system calls and the instructions without sysmon's 50", d.Counts)
	}
}

// TestGoSyscallsRecorded: in a recorded window of testdata/windowbench's
// Spin, which makes no system call, the runtime's are all left out.
func TestGoSyscallsRecorded(t *testing.T) {
	total, d := recordedDump(t, "window.sysmon.callgrind")
	if d.Counts.SysCount != 0 || total.SysCount == 0 {
		t.Fatalf("%v system calls of Go code, %v in all: want none of Go code's, some of the runtime's", d.Counts.SysCount, total.SysCount)
	}
}

// recordedDump reads testdata's recorded dump name: its totals, and as
// parseDump reads it.
func recordedDump(t *testing.T, name string) (Counts, Dump) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	total, err := parse(bytes.NewReader(b), true)
	if err != nil {
		t.Fatal(err)
	}
	d, err := parseDump(string(b), map[string]string{})
	if err != nil {
		t.Fatal(err)
	}
	return total, d
}
