package loadresult

import (
	"testing"
	"time"
)

// TestLatenciesAtSet: At and Set address the value of each percentile by
// its index in Percentiles, the order of Values.
func TestLatenciesAtSet(t *testing.T) {
	var l Latencies
	for i := range Percentiles {
		l.Set(i, time.Duration(i+1))
	}
	want := Latencies{P50: 1, P90: 2, P99: 3, P999: 4, Max: 5}
	if l != want {
		t.Fatalf("Set by index gave %+v, want %+v", l, want)
	}
	for i, v := range l.Values() {
		if l.At(i) != v {
			t.Errorf("At(%d) = %v, Values()[%d] = %v", i, l.At(i), i, v)
		}
	}
}
