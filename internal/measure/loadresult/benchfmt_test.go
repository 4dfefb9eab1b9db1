package loadresult

import (
	"testing"
	"time"
)

// TestValuesUnits: a result's benchmark values come in its units' order,
// every percentile of the one list in ns.
func TestValuesUnits(t *testing.T) {
	r := synth(t, "a", t0, time.Second, []int64{100, 200, 300}, 0)
	vals := r.GeneratorValues()
	if len(vals) != len(Units)+len(GeneratorUnits) {
		t.Fatalf("%d values for %d units", len(vals), len(Units)+len(GeneratorUnits))
	}
	for i, p := range Percentiles {
		if u := vals[1+i].Unit; u != p.Name+"-ns" || vals[1+i].Value != float64(r.Corrected.Values()[i]) {
			t.Errorf("value %d: %v %s, want %s %v", 1+i, vals[1+i].Value, u, p.Name+"-ns", r.Corrected.Values()[i])
		}
	}
	if last := vals[len(vals)-1]; last.Unit != "generator-cpu-ns/req" || last.Value != float64(r.CPUPerRequest()) {
		t.Errorf("last value %v %s", last.Value, last.Unit)
	}
}
