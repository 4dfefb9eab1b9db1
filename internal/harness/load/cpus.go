package load

import (
	"runtime"

	"github.com/loopbench/loopbench/internal/sys/cpu"
)

// UsableCPUs is the CPUs this process may use: GOMAXPROCS, at most the
// CPUs of its affinity.
func UsableCPUs() int {
	cpus := runtime.GOMAXPROCS(0)
	if allowed, err := cpu.Allowed(); err == nil && len(allowed) > 0 {
		cpus = min(cpus, len(allowed))
	}
	return cpus
}

// PinSpare pins the process to cpus and sets GOMAXPROCS to one more
// than their number. A loop waits in its selector's system call; Go's
// monitor thread takes the P of a thread in a system call, waking
// another thread to look for work, unless another P is idle. Left
// alone, GOMAXPROCS follows the affinity down to the pinned CPUs (Go
// 1.25 and later), and with one CPU every wait of the loop costs that
// hand-off and a wake-up on return: the one spare P keeps the loop's P
// its own.
func PinSpare(cpus []int) error {
	if err := cpu.Pin(cpus); err != nil {
		return err
	}
	runtime.GOMAXPROCS(len(cpus) + 1)
	return nil
}
