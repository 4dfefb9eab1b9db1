// Package procstat reads what a running process has cost the machine, so
// that a server measured from outside can be charged per request: its
// CPU time (user and system, /proc/PID/stat), its context switches
// (voluntary and involuntary, /proc/PID/task/TID/status), and, where perf
// is allowed, its system calls (perf stat on the syscall tracepoints,
// perf.go). Readings are taken before and after a window; Usage.Sub and
// Usage.PerRequest turn two of them into costs per answered request.
//
// The files are Linux's; elsewhere Supported is false and Read fails
// naming the system. The reader of files is injectable (Reader), so the
// parsing is tested on fake contents.
package procstat

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"
)

// Supported says whether this system has the /proc files Read reads.
var Supported = runtime.GOOS == "linux"

// ErrUnsupported is Read's error where Supported is false.
var ErrUnsupported = errors.New("process CPU and context switches are read from Linux's /proc, not on " + runtime.GOOS)

// UserHZ is the unit of /proc/PID/stat's utime and stime: USER_HZ, fixed
// at 100 ticks a second in the kernel's interface to user space whatever
// the kernel's own HZ.
const UserHZ = 100

// Usage is what a process has used since it started.
type Usage struct {
	CPU         time.Duration // user + system time of all its threads, living and exited
	Voluntary   int64         // context switches it asked for (it blocked)
	Involuntary int64         // context switches the scheduler imposed
}

// Sub is u - v: the usage between reading v and reading u.
func (u Usage) Sub(v Usage) Usage {
	return Usage{CPU: u.CPU - v.CPU, Voluntary: u.Voluntary - v.Voluntary, Involuntary: u.Involuntary - v.Involuntary}
}

// PerRequest divides u over n requests: CPU in ns per request and
// context switches (voluntary plus involuntary) per request. n must be
// positive.
func (u Usage) PerRequest(n int64) (cpuNs, switches float64) {
	if n <= 0 {
		return 0, 0
	}
	return float64(u.CPU.Nanoseconds()) / float64(n), float64(u.Voluntary+u.Involuntary) / float64(n)
}

// Cores is u's CPU time over wall, the time between its two readings:
// the cores it kept busy; 0 for no wall time.
func (u Usage) Cores(wall time.Duration) float64 {
	if wall <= 0 {
		return 0
	}
	return u.CPU.Seconds() / wall.Seconds()
}

// Reader reads a file under /proc; os.ReadFile is the real one.
type Reader func(path string) ([]byte, error)

// Proc reads processes' usage through its ReadFile (nil: os.ReadFile) and,
// for the list of threads, its ReadDir (nil: the names os.ReadDir finds).
type Proc struct {
	ReadFile Reader
	ReadDir  func(path string) ([]string, error) // the names in a directory
}

// Read returns process pid's usage. CPU comes from /proc/PID/stat, which
// sums the process's threads, exited ones included. Context switches are
// counted per thread (/proc/PID/status gives the main thread's alone), so
// they are summed over /proc/PID/task/*/status: a thread that exited
// takes its switches with it.
func (p Proc) Read(pid int) (Usage, error) {
	if !Supported && p.ReadFile == nil {
		return Usage{}, ErrUnsupported
	}
	read, dir := p.reader(), p.lister()
	base := filepath.Join("/proc", strconv.Itoa(pid))
	b, err := read(filepath.Join(base, "stat"))
	if err != nil {
		return Usage{}, err
	}
	u, err := parseStat(b)
	if err != nil {
		return Usage{}, fmt.Errorf("%s/stat: %w", base, err)
	}
	tids, err := dir(filepath.Join(base, "task"))
	if err != nil {
		return Usage{}, err
	}
	for _, tid := range tids {
		path := filepath.Join(base, "task", tid, "status")
		b, err := read(path)
		if errors.Is(err, os.ErrNotExist) {
			continue // the thread ended meanwhile
		}
		if err != nil {
			return Usage{}, err
		}
		vol, invol, err := parseSwitches(b)
		if err != nil {
			return Usage{}, fmt.Errorf("%s: %w", path, err)
		}
		u.Voluntary += vol
		u.Involuntary += invol
	}
	return u, nil
}

// Children returns the processes pid started that are running, from
// /proc/PID/task/*/children.
func (p Proc) Children(pid int) ([]int, error) {
	if !Supported && p.ReadFile == nil {
		return nil, ErrUnsupported
	}
	read, dir := p.reader(), p.lister()
	base := filepath.Join("/proc", strconv.Itoa(pid), "task")
	tids, err := dir(base)
	if err != nil {
		return nil, err
	}
	var out []int
	for _, tid := range tids {
		b, err := read(filepath.Join(base, tid, "children"))
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, err
		}
		for _, f := range strings.Fields(string(b)) {
			c, err := strconv.Atoi(f)
			if err != nil {
				return nil, fmt.Errorf("%s/%s/children: %q is not a process id", base, tid, f)
			}
			out = append(out, c)
		}
	}
	return out, nil
}

func (p Proc) reader() Reader {
	if p.ReadFile != nil {
		return p.ReadFile
	}
	return os.ReadFile
}

func (p Proc) lister() func(string) ([]string, error) {
	if p.ReadDir != nil {
		return p.ReadDir
	}
	return func(path string) ([]string, error) {
		entries, err := os.ReadDir(path)
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		return names, err
	}
}

// parseStat reads utime and stime (fields 14 and 15) from a
// /proc/PID/stat line. The command name, field 2, is in parentheses and
// may hold spaces and parentheses, so fields count from its last ')'.
func parseStat(b []byte) (Usage, error) {
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return Usage{}, errors.New("no ')' after the command name")
	}
	f := strings.Fields(s[i+1:]) // f[0] is field 3, the state
	if len(f) < 13 {
		return Usage{}, fmt.Errorf("%d fields after the command name, want at least 13", len(f))
	}
	var ticks int64
	for _, field := range f[11:13] {
		t, err := strconv.ParseInt(field, 10, 64)
		if err != nil || t < 0 {
			return Usage{}, fmt.Errorf("utime or stime %q is not a tick count", field)
		}
		ticks += t
	}
	return Usage{CPU: time.Duration(ticks) * time.Second / UserHZ}, nil
}

// parseSwitches reads voluntary_ctxt_switches and
// nonvoluntary_ctxt_switches from a status file.
func parseSwitches(b []byte) (vol, invol int64, err error) {
	found := 0
	for _, line := range strings.Split(string(b), "\n") {
		key, val, ok := strings.Cut(line, ":")
		if !ok || (key != "voluntary_ctxt_switches" && key != "nonvoluntary_ctxt_switches") {
			continue
		}
		n, err := strconv.ParseInt(strings.TrimSpace(val), 10, 64)
		if err != nil || n < 0 {
			return 0, 0, fmt.Errorf("%s %q is not a count", key, strings.TrimSpace(val))
		}
		if key == "voluntary_ctxt_switches" {
			vol = n
		} else {
			invol = n
		}
		found++
	}
	if found != 2 {
		return 0, 0, errors.New("no voluntary_ctxt_switches and nonvoluntary_ctxt_switches lines")
	}
	return vol, invol, nil
}
