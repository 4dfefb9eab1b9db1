package bench

import (
	"strings"
	"testing"

	"github.com/loopbench/loopbench/internal/measure/valgrind"
)

// TestNotCountable: of the Timers and Wakeup cases, exactly the Go
// runtime's timers and the real waits are not countable, and the harness
// skips them (Uncounted) only where windows are sized or counted.
func TestNotCountable(t *testing.T) {
	counts := map[string]int{}
	for _, c := range Cases(Options{Workloads: []string{"CallSoon", "Timers", "Wakeup"}}) {
		why := NotCountable(c)
		runtimeTimers := strings.HasPrefix(c.Variant, "impl=afterfunc")
		if want := runtimeTimers || c.Workload == "Wakeup"; (why != "") != want {
			t.Errorf("%s/%s: NotCountable %q", c.Workload, c.Name(), why)
		}
		if why != "" {
			counts[c.Workload]++
		}
		t.Setenv(valgrind.SizingEnv, "")
		if u := Uncounted(c); u != "" {
			t.Errorf("%s/%s: skipped natively: %q", c.Workload, c.Name(), u)
		}
		t.Setenv(valgrind.SizingEnv, "1")
		if u := Uncounted(c); u != why {
			t.Errorf("%s/%s: Uncounted %q when sizing windows, want %q", c.Workload, c.Name(), u, why)
		}
	}
	if counts["CallSoon"] != 0 || counts["Timers"] == 0 || counts["Wakeup"] == 0 {
		t.Errorf("not countable per workload: %v", counts)
	}
}
