// Package cpu pins the process to CPUs, so that a server and a load
// generator on one machine can be kept apart. Pinning needs an affinity
// call: on Linux (sched_setaffinity) it works; elsewhere Pin, Check and
// Allowed return ErrUnsupported, which names the system. LowerTimerSlack
// lets a thread that paces or fires sub-millisecond timers wake on time
// (Linux; a no-op elsewhere).
package cpu

import (
	"fmt"
	"strconv"
	"strings"
)

// Parse reads a CPU list such as "0", "1,3" or "0-3".
func Parse(s string) ([]int, error) {
	var cpus []int
	for _, part := range strings.Split(s, ",") {
		lo, hi, isRange := strings.Cut(strings.TrimSpace(part), "-")
		a, err := strconv.Atoi(lo)
		b := a
		if err == nil && isRange {
			b, err = strconv.Atoi(hi)
		}
		if err != nil || a < 0 || b < a {
			return nil, fmt.Errorf("cpu list %q: want numbers and ranges such as 0,2-3", s)
		}
		for c := a; c <= b; c++ {
			cpus = append(cpus, c)
		}
	}
	return cpus, nil
}

// Format prints a CPU list as Parse reads it: "0-3,6".
func Format(cpus []int) string {
	var parts []string
	for i := 0; i < len(cpus); {
		j := i
		for j+1 < len(cpus) && cpus[j+1] == cpus[j]+1 {
			j++
		}
		if j > i {
			parts = append(parts, fmt.Sprintf("%d-%d", cpus[i], cpus[j]))
		} else {
			parts = append(parts, strconv.Itoa(cpus[i]))
		}
		i = j + 1
	}
	return strings.Join(parts, ",")
}
