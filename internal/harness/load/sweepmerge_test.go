package load

import (
	"strings"
	"testing"
	"time"

	"github.com/loopbench/loopbench/internal/measure/loadresult"
)

var t0 = time.Date(2026, 11, 23, 10, 0, 0, 0, time.UTC)

// synth is a generator's result with the given latencies (µs), window
// from start for d, and errors, as merge reads it.
func synth(t testing.TB, name string, start time.Time, d time.Duration, lat []int64, errs int64) loadresult.Result {
	t.Helper()
	r := loadresult.Result{Name: name, Label: "srv", Size: 1024, Conns: 10,
		CorrectedHist: loadresult.NewHistogram(), UncorrectedHist: loadresult.NewHistogram(), PacingLagHist: loadresult.NewHistogram()}
	for _, v := range lat {
		r.CorrectedHist.RecordValue(v * 1000)
		r.UncorrectedHist.RecordValue(max(v/2, 1) * 1000)
		r.PacingLagHist.RecordValue(20_000)
	}
	n := int64(len(lat))
	r.Requests, r.Scheduled, r.Answered, r.Errors = n, n+errs, n, errs
	r.Achieved = float64(n) / d.Seconds()
	r.WindowStart, r.WindowEnd, r.CPU, r.Wall = start, start.Add(d), d/2, d
	r.Summarize()
	return r
}

// sweepOf is a generator's sweep: step k at rates[k] req/s, achieving
// achieved[k], with a p99 of p99us[k] µs.
func sweepOf(t *testing.T, name string, rates, achieved []float64, p99us []int64) []loadresult.Result {
	var out []loadresult.Result
	for k := range rates {
		start := t0.Add(time.Duration(k) * 5 * time.Second)
		lat := make([]int64, 100)
		for i := range lat {
			lat[i] = p99us[k] / 2
		}
		lat[99], lat[98] = p99us[k], p99us[k]
		r := synth(t, name, start, 2*time.Second, lat, 0)
		r.Offered, r.Achieved = rates[k], achieved[k]
		out = append(out, r.AsStep(k, time.Millisecond, 0.01))
	}
	return out
}

// TestMergeSweeps: two generators' sweeps merge step by step, the rates
// summed; the merged knee is the highest merged step within the SLO and
// kept up, though each generator alone looks fine one step further.
func TestMergeSweeps(t *testing.T) {
	a := sweepOf(t, "a", []float64{1000, 2000, 4000}, []float64{1000, 2000, 4000}, []int64{200, 400, 900})
	b := sweepOf(t, "b", []float64{1000, 2000, 4000}, []float64{1000, 2000, 3000}, []int64{200, 500, 5000})
	ms, err := MergeSweeps(append(a, b...))
	if err != nil {
		t.Fatal(err)
	}
	if len(ms.Steps) != 3 || ms.Steps[2].Merged.Offered != 8000 || ms.Steps[2].Merged.Achieved != 7000 {
		t.Fatalf("%d steps, the last %+v", len(ms.Steps), ms.Steps[len(ms.Steps)-1].Merged)
	}
	if ms.Knee.Rate != 4000 || ms.Knee.LowerBound || !ms.Steps[2].Verdict.Behind || !ms.Steps[2].Verdict.OverSLO {
		t.Fatalf("knee %v, last verdict %v", ms.Knee, ms.Steps[2].Verdict)
	}
	if len(ms.Refusals) != 0 || ms.Criteria.SLO != time.Millisecond {
		t.Fatalf("refusals %q criteria %+v", ms.Refusals, ms.Criteria)
	}
	// A generator CPU-bound at step 2 limits the knee to step 1.
	b[1].CPU, b[1].CPUs = b[1].Wall, 1
	ms, _ = MergeSweeps(append(a, b...))
	if ms.Knee.Rate != 2000 || !ms.Knee.LowerBound || !strings.Contains(ms.Knee.Note, "CPU-bound at 4000 req/s") {
		t.Fatalf("knee %+v", ms.Knee)
	}
}

// TestMergeSweepsUneven: a generator that stopped a step early ends the
// merged sweep there, with a warning; sweeps of different SLOs are
// refused; steps and single runs do not mix.
func TestMergeSweepsUneven(t *testing.T) {
	a := sweepOf(t, "a", []float64{1000, 2000, 4000}, []float64{1000, 2000, 4000}, []int64{200, 400, 900})
	b := sweepOf(t, "b", []float64{1000, 2000}, []float64{1000, 2000}, []int64{200, 400})
	ms, err := MergeSweeps(append(a, b...))
	if err != nil || len(ms.Steps) != 2 || len(ms.Warnings) != 1 || !strings.Contains(ms.Warnings[0], "step 3 was run by a, step 1 by a, b") {
		t.Fatalf("%d steps, warnings %q, %v", len(ms.Steps), ms.Warnings, err)
	}
	b[0].SLO = 10 * time.Millisecond
	if ms, _ = MergeSweeps(append(a, b...)); len(ms.Refusals) != 1 || !strings.Contains(ms.Refusals[0], "not the same sweep") {
		t.Fatalf("refusals %q", ms.Refusals)
	}
	if _, err := IsSweep(append(a, synth(t, "c", t0, time.Second, []int64{1}, 0))); err == nil {
		t.Fatal("steps and a single run mixed")
	}
}

// TestMergeSweepsInterrupted: a step a generator was interrupted in
// (written by a loopbench that kept it) ends the merged sweep before it,
// with one warning, so the knee is not claimed from it; interrupted in
// the first step, there is nothing to merge.
func TestMergeSweepsInterrupted(t *testing.T) {
	a := sweepOf(t, "a", []float64{1000, 2000, 4000}, []float64{1000, 2000, 4000}, []int64{200, 400, 900})
	b := sweepOf(t, "b", []float64{1000, 2000, 4000}, []float64{1000, 2000, 0}, []int64{200, 400, 0})
	b[2].Interrupted, b[2].Requests, b[2].Answered = true, 0, 0
	ms, err := MergeSweeps(append(a, b...))
	if err != nil || len(ms.Steps) != 2 || len(ms.Warnings) != 1 || ms.Warnings[0] != "step 3 was interrupted in b: the merged sweep ends before it" {
		t.Fatalf("%d steps, warnings %q, %v", len(ms.Steps), ms.Warnings, err)
	}
	if ms.Knee.Rate != 4000 || !ms.Knee.LowerBound {
		t.Fatalf("knee %+v: want at least 4000 req/s", ms.Knee)
	}
	a[0].Interrupted = true
	if _, err := MergeSweeps(append(a, b...)); err == nil || err.Error() != "step 1 was interrupted in a: no step to merge" {
		t.Fatalf("interrupted in the first step: %v", err)
	}
}

// TestMergeSweepKeepsLimits: one generator's sweep merged alone keeps
// every generator limit its own sweep judged: connection-bound (its one
// connection busy, answered as fast as at the first step), late, and
// CPU-bound (its one loop busy), with the knee the sweep found.
func TestMergeSweepKeepsLimits(t *testing.T) {
	c := Criteria{SLO: 50 * time.Millisecond, MaxErrors: 0.01}
	var steps []loadresult.Result
	var own []StepOutcome
	for k, rate := range []float64{400, 1000, 1200, 1400} {
		r := synth(t, "g", t0.Add(time.Duration(k)*5*time.Second), 2*time.Second, latencies(2000, 100), 0)
		r.Conns, r.CPUs, r.Loops, r.Offered, r.Achieved = 1, 2, 1, rate, min(rate, 450)
		switch k {
		case 2:
			r.PacingLagHist.RecordValues(8_000_000, 10) // 8 ms late: past a tenth of the SLO
			r.Summarize()
		case 3:
			r.CPU = r.Wall * 95 / 100
		}
		steps = append(steps, r.AsStep(k, c.SLO, c.MaxErrors))
		fig := FiguresOf(r, r.CPUs)
		if k > 0 {
			fig.BaseLatencyP50 = steps[0].Uncorrected.P50
		}
		own = append(own, StepOutcome{Offered: rate, Verdict: c.Judge(fig)})
	}
	ms, err := MergeSweeps(steps)
	if err != nil || len(ms.Steps) != 4 {
		t.Fatalf("%d steps, %v", len(ms.Steps), err)
	}
	wants := []string{"met", "behind, generator connection-bound", "behind, generator late, generator connection-bound", "behind, generator CPU-bound, generator connection-bound"}
	for k, s := range ms.Steps {
		if got := s.Verdict.String(); got != wants[k] || s.Verdict != own[k].Verdict {
			t.Errorf("step %d: merged %q, the sweep's own %q; want %q", k+1, got, own[k].Verdict, wants[k])
		}
	}
	if ms.Knee != FindKnee(own) || ms.Knee.Rate != 400 || !ms.Knee.LowerBound {
		t.Errorf("merged knee %v, the sweep's own %v", ms.Knee, FindKnee(own))
	}
}

// latencies are n latencies (µs) from base up by a tenth of it each.
func latencies(base, n int64) []int64 {
	out := make([]int64, n)
	for i := range out {
		out[i] = base + int64(i)*base/10
	}
	return out
}
