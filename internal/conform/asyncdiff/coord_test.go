package asyncdiff

import (
	"encoding/json"
	"reflect"
	"testing"
)

// TestGenerateCoordDeterministic: a seed always gives the same
// coordination schedule, which survives its trip through JSON, and other
// seeds give others.
func TestGenerateCoordDeterministic(t *testing.T) {
	a, b := GenerateCoord(7), GenerateCoord(7)
	if !reflect.DeepEqual(a, b) {
		t.Fatal("GenerateCoord(7) gave two schedules")
	}
	js, err := json.Marshal(a)
	if err != nil {
		t.Fatal(err)
	}
	var back CoordSchedule
	if err := json.Unmarshal(js, &back); err != nil || !reflect.DeepEqual(a, back) {
		t.Fatalf("JSON round trip changed the schedule (%v)", err)
	}
	if reflect.DeepEqual(a, GenerateCoord(8)) {
		t.Fatal("seeds 7 and 8 gave the same schedule")
	}
}

// TestGenerateCoordCovers: the schedules of the seeds the check runs use
// every step, every queue kind, catching and propagating tasks, and
// cancellations from timers.
func TestGenerateCoordCovers(t *testing.T) {
	seen := map[string]int{}
	for seed := range 200 {
		s := GenerateCoord(uint64(seed))
		seen["queue "+s.QKind]++
		seen["timer cancel"] += len(s.Cancels)
		for _, p := range s.Tasks {
			seen[map[bool]string{true: "catching task", false: "propagating task"}[p.Catch]]++
			for _, st := range p.Steps {
				seen[st.Op]++
			}
		}
	}
	want := []string{"queue fifo", "queue lifo", "queue prio", "timer cancel", "catching task", "propagating task"}
	for _, op := range append(want, coordOps...) {
		if seen[op] < 20 {
			t.Errorf("%q in %d places over 200 schedules, want at least 20", op, seen[op])
		}
	}
}
