package bench

import (
	"slices"
	"testing"
)

// TestWorkloadRegistry: every workload name is accepted and selects cases
// of that workload only; the whole matrix is the workloads' cases in the
// order of Workloads; an unknown name gets the error that lists the valid
// ones and selects nothing.
func TestWorkloadRegistry(t *testing.T) {
	var order []string
	for _, c := range Cases(Options{Quick: true}) {
		if len(order) == 0 || order[len(order)-1] != c.Workload {
			order = append(order, c.Workload)
		}
	}
	if !slices.Equal(order, Workloads) {
		t.Fatalf("the matrix runs %v, want %v", order, Workloads)
	}
	for _, w := range Workloads {
		if err := CheckWorkload(w); err != nil {
			t.Errorf("CheckWorkload(%q): %v", w, err)
		}
		cs := Cases(Options{Workloads: []string{w}, Quick: true})
		if len(cs) == 0 {
			t.Errorf("workload %s has no case", w)
		}
		for _, c := range cs {
			if c.Workload != w {
				t.Errorf("workload %s selects %s/%s", w, c.Workload, c.Name())
			}
		}
	}
	const want = `unknown workload "Sorting" (valid: CallSoon, ReadyQueue, RunOnce, Timers, IOChain, Echo, UDPEcho, Signal, Subprocess, Await, Coordination, Wakeup)`
	if err := CheckWorkload("Sorting"); err == nil || err.Error() != want {
		t.Errorf("CheckWorkload(unknown) = %v, want %s", err, want)
	}
	if cs := Cases(Options{Workloads: []string{"Sorting"}}); len(cs) != 0 {
		t.Errorf("an unknown workload selects %d cases", len(cs))
	}
}
