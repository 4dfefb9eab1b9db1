package bench

import "testing"

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
