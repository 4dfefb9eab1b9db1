package valgrind_test

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/loopbench/loopbench/internal/harness/callgrind"
	"github.com/loopbench/loopbench/internal/measure/valgrind"
	"github.com/loopbench/loopbench/internal/sys/raceflag"
)

// helperEnv makes the test binary the program counted under callgrind.
const helperEnv = "LOOPBENCH_VALGRIND_HELPER"

func TestMain(m *testing.M) {
	if os.Getenv(helperEnv) != "" {
		windows()
		os.Exit(0)
	}
	os.Exit(m.Run())
}

var sink uint64

// spin is a chain of n dependent multiply-adds.
//
//go:noinline
func spin(n int) {
	x := sink
	for range n {
		x = x*6364136223846793005 + 1442695040888963407
	}
	sink = x
}

// setupOps is the helper's setup before its windows: far more than both
// windows together.
const setupOps = 20_000_000

// windows runs a large setup, then counts spin at two sizes in windows.
func windows() {
	spin(setupOps)
	for _, n := range []int{1000, 4000} {
		valgrind.ZeroStats()
		valgrind.StartInstrumentation()
		spin(n)
		valgrind.StopInstrumentation()
		valgrind.DumpStatsAt(fmt.Sprintf("window n=%d", n))
	}
}

// TestNative: outside valgrind every request returns at once and Running
// is false.
func TestNative(t *testing.T) {
	valgrind.ZeroStats()
	valgrind.StartInstrumentation()
	valgrind.StopInstrumentation()
	valgrind.DumpStatsAt("native")
	valgrind.DumpStats()
	if valgrind.Running() {
		t.Fatal("Running outside valgrind")
	}
}

// TestWindowUnderCallgrind runs windows under callgrind with
// instrumentation off at start: each window's dump counts its own loop
// (4000 iterations count 4 times 1000, within 1 %) and none of the setup
// (20 M iterations).
func TestWindowUnderCallgrind(t *testing.T) {
	if !valgrind.Supported {
		t.Skip("client requests are written for amd64 and arm64 only: the window is not checked")
	}
	if raceflag.Enabled {
		t.Skip("built with -race: the race detector's runtime runs in the window, which is checked without it")
	}
	vg, err := exec.LookPath("valgrind")
	if err != nil {
		t.Skip("valgrind not installed (Debian package valgrind): the window is not checked")
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	cmd := exec.Command(vg, "--tool=callgrind", "--instr-atstart=no", "--callgrind-out-file="+filepath.Join(dir, "cg.out"), exe)
	cmd.Env = append(os.Environ(), helperEnv+"=1", "GOMAXPROCS=1", "GODEBUG=asyncpreemptoff=1")
	if out, err := cmd.CombinedOutput(); err != nil {
		if bytes.Contains(out, []byte("failed to start tool")) {
			// A valgrind for another platform (an arm64 test binary
			// under qemu-user finds the host's).
			t.Skipf("this valgrind cannot run a %s binary: the window is not checked", runtime.GOARCH)
		}
		t.Fatalf("%v: %s", err, out)
	}
	dumps, err := callgrind.ReadDumps(filepath.Join(dir, "cg.out"))
	if err != nil {
		t.Fatal(err)
	}
	ir := map[int]float64{}
	for _, d := range dumps {
		if n, ok := strings.CutPrefix(d.Reason, "window n="); ok {
			k, _ := strconv.Atoi(n)
			ir[k] = d.Counts.Ir
		}
	}
	if len(ir) != 2 || ir[1000] <= 0 || ir[4000] <= 0 {
		t.Fatalf("dumps %+v: want the windows n=1000 and n=4000", dumps)
	}
	if r := ir[4000] / ir[1000]; r < 3.96 || r > 4.04 {
		t.Errorf("window of 4000 counted %v, of 1000 %v: ratio %.3f, want 4", ir[4000], ir[1000], r)
	}
	if ir[4000] > setupOps/100 {
		t.Errorf("window of 4000 counted %v instructions: the setup's %d iterations leaked in", ir[4000], setupOps)
	}
}

// TestWindowReason: a reason reads back as the name and count it was
// written with; other dumps' reasons do not read.
func TestWindowReason(t *testing.T) {
	name := "Timers/ready=ringbuffer/timers=heap4ary/selector=epoll/op=schedule-fire/p=1000"
	got, n, ok := valgrind.ParseWindowReason(valgrind.WindowReason(name, 1234))
	if !ok || got != name || n != 1234 {
		t.Fatalf("read %q %d %v", got, n, ok)
	}
	for _, r := range []string{"", "Program termination", valgrind.WindowPrefix + " N=x X", valgrind.WindowPrefix + " N=3", valgrind.WindowPrefix + " N=3 "} {
		if _, _, ok := valgrind.ParseWindowReason(r); ok {
			t.Errorf("%q read as a window", r)
		}
	}
}
