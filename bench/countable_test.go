package bench

import (
	"strings"
	"testing"

	"github.com/loopbench/loopbench/internal/measure/valgrind"
	"github.com/loopbench/loopbench/selectors"
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

// TestUringWaitsNotCountable: the cases whose uring loop waits for
// another thread or process are not countable; their other variants,
// and the uring cases that never wait (IOChain, CallSoon), are.
func TestUringWaitsNotCountable(t *testing.T) {
	uring := 0
	for _, c := range Cases(Options{Workloads: []string{"CallSoon", "IOChain", "Echo", "UDPEcho", "Signal", "Subprocess"}}) {
		onUring := strings.Contains(c.Variant, "selector=uring")
		waits := c.Workload != "CallSoon" && c.Workload != "IOChain"
		if why := NotCountable(c); (why != "") != (onUring && waits) {
			t.Errorf("%s/%s: NotCountable %q", c.Workload, c.Name(), why)
		}
		if onUring && waits {
			uring++
		}
	}
	if err := selectors.Available("uring"); err == nil && uring == 0 {
		t.Error("no waiting case on the uring selector, where the kernel has io_uring")
	}
}
