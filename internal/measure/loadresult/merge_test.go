package loadresult

import (
	"testing"
	"time"
)

// part is one loop's or one generator's result: n answers of lat µs,
// errs errors of text, cpu over wall.
func part(t *testing.T, name string, n int64, lat int64, errs []ErrorCount, cpu, wall time.Duration) Result {
	t.Helper()
	r := synth(t, name, t0, wall, make([]int64, 0), 0)
	for range n {
		r.CorrectedHist.RecordValue(lat * 1000)
		r.UncorrectedHist.RecordValue(lat * 1000)
	}
	r.Requests, r.Answered, r.Scheduled = n, n, n
	for _, e := range errs {
		r.Errors += e.Count
		r.Scheduled += e.Count
	}
	r.ErrorTexts, r.CPU, r.Wall = errs, cpu, wall
	r.Summarize()
	return r
}

// TestMergeParts: counts, errors by text and CPU add up, histograms merge,
// and the wall time is the longest part's, not a made-up one: the merged
// cores and CPU per request are those of the real times.
func TestMergeParts(t *testing.T) {
	a := part(t, "a", 30, 100, []ErrorCount{{"read: i/o timeout", 2}}, time.Second, 2*time.Second)
	b := part(t, "b", 70, 300, []ErrorCount{{"dial: connection refused", 1}, {"read: i/o timeout", 3}}, 3*time.Second/2, 3*time.Second)
	a.Expired, b.Expired, b.Mismatched = 2, 3, 1
	m := Merge(a, b)
	if m.Requests != 100 || m.Answered != 100 || m.Errors != 6 || m.Scheduled != 106 || m.Expired != 5 || m.Mismatched != 1 || !m.Balanced() {
		t.Fatalf("counts: %d requests, %d answered, %d errors, %d scheduled, %d expired", m.Requests, m.Answered, m.Errors, m.Scheduled, m.Expired)
	}
	if len(m.ErrorTexts) != 2 || m.ErrorTexts[0] != (ErrorCount{"read: i/o timeout", 5}) || m.ErrorTexts[1] != (ErrorCount{"dial: connection refused", 1}) {
		t.Fatalf("errors by text: %v", m.ErrorTexts)
	}
	if m.CorrectedHist.TotalCount() != 100 || m.Corrected.P50 < 299*time.Microsecond || m.Corrected.P50 > 301*time.Microsecond {
		t.Fatalf("merged histogram: %d values, p50 %v; want 100 and 300µs", m.CorrectedHist.TotalCount(), m.Corrected.P50)
	}
	if m.Wall != 3*time.Second || m.CPU != 5*time.Second/2 {
		t.Fatalf("wall %v, CPU %v; want the longest wall 3s and the CPU summed, 2.5s", m.Wall, m.CPU)
	}
	if c := m.Cores(); c < 0.833 || c > 0.834 {
		t.Fatalf("cores %v, want 2.5s over 3s", c)
	}
	if got := m.CPUPerRequest(); got != 25*time.Millisecond {
		t.Fatalf("CPU per request %v, want 2.5s over 100 answers", got)
	}
	if a.ErrorTexts[0].Count != 2 || b.ErrorTexts[1].Count != 3 {
		t.Fatal("Merge changed its parts' error counts")
	}
}

// TestMergeGeneratorsCPU: merging generators keeps their CPU and wall
// times, so the merged JSON's CPU per request is real.
func TestMergeGeneratorsCPU(t *testing.T) {
	a := part(t, "a", 10, 100, nil, 400*time.Millisecond, 2*time.Second)
	b := part(t, "b", 10, 100, nil, 600*time.Millisecond, 2*time.Second)
	m, err := MergeGenerators([]Result{a, b})
	if err != nil {
		t.Fatal(err)
	}
	g := m.JSON().Generator
	if g.WallNS != int64(2*time.Second) || g.CPUNS != int64(time.Second) || g.CPUPerRequestNS != int64(50*time.Millisecond) || g.Cores != 0.5 {
		t.Fatalf("generator figures %+v", g)
	}
}

// TestMergeEmpty: nothing merges into the zero result, and parts without
// histograms into none.
func TestMergeEmpty(t *testing.T) {
	if m := Merge(); m.Requests != 0 || m.CorrectedHist != nil {
		t.Fatalf("Merge() = %+v", m)
	}
	m := Merge(Result{Requests: 1, Wall: time.Second}, Result{Requests: 2, Wall: time.Second})
	if m.Requests != 3 || m.CorrectedHist != nil || m.Wall != time.Second {
		t.Fatalf("merged %d requests, wall %v", m.Requests, m.Wall)
	}
}
