package machine

import (
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
)

// Description is what a run records of the machine it ran on, beside
// goos, goarch, cpu, kernel and go: the host name, the CPUs the process
// may use and the memory, as configuration lines (machine-host,
// machine-cores, machine-memory) that reports use to tell machines
// apart. Memory is left out where it cannot be read.
func Description() [][2]string {
	host, err := os.Hostname()
	if err != nil || host == "" {
		host = "unknown"
	}
	out := [][2]string{{"machine-host", host}, {"machine-cores", fmt.Sprint(runtime.NumCPU())}}
	if b, ok := memory(); ok {
		out = append(out, [2]string{"machine-memory", FormatBytes(b)})
	}
	return out
}

// FormatBytes formats a size in binary units to a tenth: "7.8 GiB".
func FormatBytes(b uint64) string {
	const unit = 1024
	if b < unit {
		return fmt.Sprintf("%d B", b)
	}
	v, i := float64(b), -1
	for v >= unit && i < 4 {
		v /= unit
		i++
	}
	return fmt.Sprintf("%.1f %ciB", v, "KMGTP"[i])
}

// parseMemTotal reads MemTotal (in kB) out of /proc/meminfo's text.
func parseMemTotal(meminfo string) (uint64, bool) {
	for _, line := range strings.Split(meminfo, "\n") {
		if rest, ok := strings.CutPrefix(line, "MemTotal:"); ok {
			f := strings.Fields(rest)
			if len(f) == 0 {
				return 0, false
			}
			kb, err := strconv.ParseUint(f[0], 10, 64)
			return kb * 1024, err == nil
		}
	}
	return 0, false
}
