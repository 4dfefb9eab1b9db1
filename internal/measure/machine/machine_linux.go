//go:build linux

package machine

import (
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// userHZ is the unit of /proc/stat (USER_HZ, 100 on every Linux ABI).
const userHZ = 100

// Read samples the machine's counters now.
func Read() (Sample, error) {
	s := Sample{At: time.Now()}
	la, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return s, err
	}
	if f := strings.Fields(string(la)); len(f) > 0 {
		s.Load1, _ = strconv.ParseFloat(f[0], 64)
	}
	stat, err := os.ReadFile("/proc/stat")
	if err != nil {
		return s, err
	}
	line, _, _ := strings.Cut(string(stat), "\n")
	f := strings.Fields(line) // cpu user nice system idle iowait irq softirq steal guest guest_nice
	if len(f) < 9 || f[0] != "cpu" {
		return s, ErrUnsupported
	}
	var v [8]time.Duration
	for i := range v {
		n, _ := strconv.ParseInt(f[i+1], 10, 64)
		v[i] = time.Duration(n) * time.Second / userHZ
	}
	s.Busy = v[0] + v[1] + v[2] + v[5] + v[6]
	s.Steal = v[7]
	s.Total = v[0] + v[1] + v[2] + v[3] + v[4] + v[5] + v[6] + v[7]
	for _, who := range []int{syscall.RUSAGE_SELF, syscall.RUSAGE_CHILDREN} {
		var ru syscall.Rusage
		if syscall.Getrusage(who, &ru) == nil {
			s.Self += time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
		}
	}
	return s, nil
}

// Governor is cpu0's frequency governor, "" where it cannot be read.
func Governor() string {
	b, err := os.ReadFile("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor")
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
}

// memory is MemTotal of /proc/meminfo, in bytes.
func memory() (uint64, bool) {
	b, err := os.ReadFile("/proc/meminfo")
	if err != nil {
		return 0, false
	}
	return parseMemTotal(string(b))
}
