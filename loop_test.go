package loopbench_test

import (
	"testing"

	"github.com/loopbench/loopbench"
	"github.com/loopbench/loopbench/internal/conform/looptest"
)

// TestLoop runs every conformance suite of the loop (looptest.Suites) on
// its variants: each suite is a subtest, each configuration one below it.
func TestLoop(t *testing.T) {
	looptest.WakeInvariant = loopbench.WakeInvariant
	looptest.RunSuites(t)
}

// TestParts checks that looptest.Parts puts every implementation of
// every part in a suite, with one part off its default at a time.
func TestParts(t *testing.T) {
	parts := looptest.Parts()
	seen := map[string]bool{}
	for _, c := range parts {
		seen["ready="+c.Ready], seen["timers="+c.Timers], seen["selector="+c.Selector] = true, true, true
	}
	for _, v := range loopbench.Variants() {
		for _, name := range []string{"ready=" + v.Ready, "timers=" + v.Timers, "selector=" + v.Selector} {
			if !seen[name] {
				t.Errorf("%s is in no configuration of Parts: %v", name, parts)
			}
		}
	}
	ready, timers, sels := map[string]bool{}, map[string]bool{}, map[string]bool{}
	for _, v := range loopbench.Variants() {
		ready[v.Ready], timers[v.Timers], sels[v.Selector] = true, true, true
	}
	if want := 1 + len(ready) - 1 + len(timers) - 1 + len(sels) - 1; len(parts) != want {
		t.Errorf("%d configurations, want %d (the default and each other implementation once): %v", len(parts), want, parts)
	}
	if n := len(looptest.PartsBothModes()); n != 2*len(parts) {
		t.Errorf("PartsBothModes: %d, want %d", n, 2*len(parts))
	}
}
