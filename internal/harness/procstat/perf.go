package procstat

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
)

// Syscalls are the system calls a process made over a window.
type Syscalls struct {
	Total     int64 // every system call (raw_syscalls:sys_enter)
	Futex     int64 // futex: a runtime's threads parking and waking each other
	Nanosleep int64 // nanosleep: Go's runtime sleeps with it (usleep, sysmon)
}

// Runtime is the calls a language runtime makes on its own account, not
// the program's I/O: futex and nanosleep.
func (s Syscalls) Runtime() int64 { return s.Futex + s.Nanosleep }

// perfEvents are the tracepoints Perf counts, in Syscalls' order.
var perfEvents = []string{"raw_syscalls:sys_enter", "syscalls:sys_enter_futex", "syscalls:sys_enter_nanosleep"}

// Perf counts a process's system calls with perf stat on the syscall
// tracepoints. The counting costs the process a little on every call, so
// a window counted by it is not a window to read CPU time from.
type Perf struct {
	Path string // the perf program
}

// FindPerf finds perf with lookPath (exec.LookPath in use) and checks that
// it may count the tracepoints, by counting them over /bin/true; its error
// is the one line that says why it cannot (not Linux, not installed, or
// refused: perf_event_paranoid, no tracefs).
func FindPerf(ctx context.Context, lookPath func(string) (string, error)) (*Perf, error) {
	if runtime.GOOS != "linux" {
		return nil, fmt.Errorf("system calls are counted with Linux's perf, not on %s", runtime.GOOS)
	}
	path, err := lookPath("perf")
	if err != nil {
		return nil, errors.New("perf is not installed (Debian: apt install linux-perf): system calls are not counted")
	}
	p := &Perf{Path: path}
	cmd := exec.CommandContext(ctx, path, append(p.args(nil), "--", "true")...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("perf may not count system calls here (%v: %s): system calls are not counted", err, firstLine(stderr.String()))
	}
	if _, err := ParsePerf(stderr.Bytes()); err != nil {
		return nil, fmt.Errorf("perf may not count system calls here (%v): system calls are not counted", err)
	}
	return p, nil
}

// Prefix is the command line under which a program runs for pid's system
// calls to be counted while it runs: perf stat attached to pid, writing
// its counts to out (for ParsePerf), ending with "--" before the
// program's own argv. The counters are enabled before the program starts
// and read when it ends, so the window is exactly the program's.
func (p *Perf) Prefix(pid int, out string) []string {
	return append([]string{p.Path}, p.args([]string{"-o", out, "-p", strconv.Itoa(pid), "--"})...)
}

func (p *Perf) args(extra []string) []string {
	args := []string{"stat", "-x", ","}
	for _, e := range perfEvents {
		args = append(args, "-e", e)
	}
	return append(args, extra...)
}

// ParsePerf reads perf stat's CSV output (-x ,): a line per event, its
// count first and its name third. An event perf could not count is an
// error.
func ParsePerf(b []byte) (Syscalls, error) {
	counts := map[string]int64{}
	for _, line := range strings.Split(string(b), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Split(line, ",")
		if len(f) < 3 {
			continue
		}
		n, err := strconv.ParseInt(f[0], 10, 64)
		if err != nil {
			return Syscalls{}, fmt.Errorf("perf counted %s as %q", f[2], f[0])
		}
		counts[f[2]] = n
	}
	var out [3]int64
	for i, e := range perfEvents {
		n, ok := counts[e]
		if !ok {
			return Syscalls{}, fmt.Errorf("perf printed no count of %s", e)
		}
		out[i] = n
	}
	return Syscalls{Total: out[0], Futex: out[1], Nanosleep: out[2]}, nil
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	return s
}
