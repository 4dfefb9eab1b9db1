package bench

import (
	"slices"
	"strings"
	"testing"
)

// TestShortSetLeavesOutWakeup: the Wakeup cases, whose work is waiting
// on the real clock, are nightly only.
func TestShortSetLeavesOutWakeup(t *testing.T) {
	if n := len(Cases(Options{Workloads: []string{"Wakeup"}})); n == 0 {
		t.Fatal("no Wakeup case in the full set")
	}
	if short := Cases(Options{Workloads: []string{"Wakeup"}, Short: true}); len(short) != 0 {
		t.Fatalf("%d Wakeup cases in the pull-request set, first %s", len(short), short[0].Name())
	}
}

// TestShortSet: the pull-request set is the full set without the Go
// runtime's baselines and the cases sized 10⁶, and keeps the rest.
func TestShortSet(t *testing.T) {
	full := Cases(Options{Workloads: []string{"CallSoon", "Timers"}})
	short := Cases(Options{Workloads: []string{"CallSoon", "Timers"}, Short: true})
	var dropped int
	for _, c := range full {
		nightly := strings.HasPrefix(c.Variant, "impl=") || strings.Contains(c.Params+"/", "=1000000/")
		kept := slices.ContainsFunc(short, func(s Case) bool { return s.Name() == c.Name() && s.Workload == c.Workload })
		if nightly == kept {
			t.Errorf("%s/%s: nightly only %v, in the short set %v", c.Workload, c.Name(), nightly, kept)
		}
		if nightly {
			dropped++
		}
	}
	if dropped == 0 || len(short) != len(full)-dropped {
		t.Fatalf("full %d, short %d, dropped %d", len(full), len(short), dropped)
	}
}
