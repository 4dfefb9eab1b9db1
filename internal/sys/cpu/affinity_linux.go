//go:build linux

package cpu

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"strconv"

	"golang.org/x/sys/unix"
)

// Pin restricts every thread of the process (and the threads it starts
// later, which inherit it) to cpus.
func Pin(cpus []int) error {
	var set unix.CPUSet
	for _, c := range cpus {
		set.Set(c)
	}
	tasks, err := os.ReadDir("/proc/self/task")
	if err != nil {
		return err
	}
	for _, t := range tasks {
		tid, err := strconv.Atoi(t.Name())
		if err != nil {
			continue
		}
		if err := unix.SchedSetaffinity(tid, &set); err != nil && err != unix.ESRCH {
			return os.NewSyscallError("sched_setaffinity", err)
		}
	}
	return nil
}

// Check fails, naming the CPUs that exist, when cpus holds one the
// process may not run on.
func Check(cpus []int) error {
	var set unix.CPUSet
	if err := unix.SchedGetaffinity(0, &set); err != nil {
		return os.NewSyscallError("sched_getaffinity", err)
	}
	for _, c := range cpus {
		if c >= len(set)*64 || !set.IsSet(c) {
			return fmt.Errorf("CPU %d is not available: this process may use CPUs %s", c, Format(usable(&set)))
		}
	}
	return nil
}

// Allowed returns the CPUs the process may run on.
func Allowed() ([]int, error) {
	var set unix.CPUSet
	if err := unix.SchedGetaffinity(0, &set); err != nil {
		return nil, os.NewSyscallError("sched_getaffinity", err)
	}
	return usable(&set), nil
}

func usable(set *unix.CPUSet) []int {
	var out []int
	for c := 0; c < len(set)*64; c++ {
		if set.IsSet(c) {
			out = append(out, c)
		}
	}
	return out
}

// ErrUnsupported is returned where the system offers no CPU affinity
// call; on Linux it is never returned.
var ErrUnsupported = errors.New("CPU pinning is not supported on " + runtime.GOOS)
