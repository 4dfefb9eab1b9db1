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
