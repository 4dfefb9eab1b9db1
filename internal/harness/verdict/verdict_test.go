package verdict

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/loopbench/loopbench/internal/sys/raceflag"
)

// lognormal returns n values around center with multiplicative noise of
// sigma in log space (0.3: "30 % lognormal noise").
func lognormal(r *rand.Rand, n int, center, sigma float64) []float64 {
	xs := make([]float64, n)
	for i := range xs {
		xs[i] = center * math.Exp(sigma*r.NormFloat64())
	}
	return xs
}

// aaRun is one simulated A/A run: k benchmarks, n samples a side, both
// sides from one distribution.
func aaRun(r *rand.Rand, k, n int, sigma float64) []Pair {
	pairs := make([]Pair, k)
	for i := range pairs {
		c := 10 + 100*r.Float64()
		pairs[i] = Pair{Name: fmt.Sprintf("B%d", i), Unit: "sec/op", Better: -1, Base: lognormal(r, n, c, sigma), Head: lognormal(r, n, c, sigma)}
	}
	return pairs
}

// TestAAFamilyWiseRate: 1000 simulated A/A runs of 150 benchmarks with 30 %
// lognormal noise, n = 10 a side: the runs with any false alarm are at
// most alpha. Without Holm's correction nearly every run would alarm,
// which the test checks too, so it can fail. (200 runs under -short and
// the race detector, which slows it tenfold.)
func TestAAFamilyWiseRate(t *testing.T) {
	runs := 1000
	if testing.Short() || raceflag.Enabled {
		runs = 200
	}
	r := rand.New(rand.NewPCG(2026, 11))
	const alpha = 0.05
	alarmed, uncorrected := 0, 0
	for range runs {
		v := Decide(aaRun(r, 150, 10, 0.3), Options{Alpha: alpha, MinEffect: 0.05})
		if v.Count(Regressed) > 0 || v.Count(Improved) > 0 {
			alarmed++
		}
		if v.Exit() == ExitUndecided {
			t.Fatalf("A/A run undecided at n=10: %+v", v.Comparisons[0])
		}
		for _, c := range v.Comparisons {
			if c.P < alpha && c.Delta > 0.05 {
				uncorrected++
				break
			}
		}
	}
	rate := float64(alarmed) / float64(runs)
	t.Logf("%d A/A runs: %d with a false alarm (%.3f); %d would alarm without the correction", runs, alarmed, rate, uncorrected)
	if rate > alpha {
		t.Fatalf("family-wise false-alarm rate %.3f > alpha %.2f", rate, alpha)
	}
	if uncorrected < runs*9/10 {
		t.Fatalf("only %d of %d runs alarm without the correction: the simulation is too quiet to test anything", uncorrected, runs)
	}
}

// TestShiftCaught: one benchmark 10 % slower with 3 % noise, n = 10 a
// side, among 149 unchanged ones with 30 % noise, is caught in at least
// 95 of 100 runs (at m = 150 it must reach p <= 0.05/150, which takes a
// near-perfect separation of the two samples), and nothing else is
// flagged with it more than alpha's share of the time.
func TestShiftCaught(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	caught, others := 0, 0
	const runs = 100
	for range runs {
		pairs := aaRun(r, 149, 10, 0.3)
		pairs = append(pairs, Pair{Name: "Slow", Unit: "sec/op", Better: -1, Base: lognormal(r, 10, 100, 0.03), Head: lognormal(r, 10, 110, 0.03)})
		v := Decide(pairs, Options{Alpha: 0.05, MinEffect: 0.05})
		for _, c := range v.Regressions() {
			if c.Name == "Slow" {
				caught++
			} else {
				others++
			}
		}
	}
	t.Logf("10%% shift caught in %d of %d runs, %d other alarms", caught, runs, others)
	if caught < 95 || others > runs/20 {
		t.Fatalf("10%% shift caught in %d of %d runs (want >= 95), %d other alarms", caught, runs, others)
	}
}

// TestShiftBelowMinEffect: a significant 3 % change is not a regression
// under a 5 % minimum effect, and is under 2 %.
func TestShiftBelowMinEffect(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	p := Pair{Name: "X", Unit: "sec/op", Better: -1, Base: lognormal(r, 12, 100, 0.002), Head: lognormal(r, 12, 103, 0.002)}
	v := Decide([]Pair{p}, Options{MinEffect: 0.05})
	if c := v.Comparisons[0]; !c.Significant || c.Status != Same || v.Exit() != ExitPass {
		t.Fatalf("3%% change under a 5%% minimum: %+v", c)
	}
	v = Decide([]Pair{p}, Options{MinEffect: 0.02})
	if v.Exit() != ExitRegression {
		t.Fatalf("3%% change under a 2%% minimum: %+v", v.Comparisons[0])
	}
	// A noise floor of 4 % raises the 2 % minimum above the change.
	f := Floors{}
	f.Set("", "X", "sec/op", 0.04)
	v = Decide([]Pair{p}, Options{MinEffect: 0.02, Floors: f})
	if c := v.Comparisons[0]; v.Exit() != ExitPass || c.MinEffect != 0.04 {
		t.Fatalf("3%% change with a 4%% floor: %+v", c)
	}
}

// TestHigherIsBetter: for req/s a drop is the regression, a rise is not.
func TestHigherIsBetter(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	down := Pair{Name: "Echo", Unit: "req/s", Better: 1, Base: lognormal(r, 10, 1000, 0.01), Head: lognormal(r, 10, 800, 0.01)}
	up := Pair{Name: "Echo2", Unit: "req/s", Better: 1, Base: lognormal(r, 10, 1000, 0.01), Head: lognormal(r, 10, 1200, 0.01)}
	v := Decide([]Pair{down, up}, Options{MinEffect: 0.05})
	if v.Comparisons[0].Status != Regressed || v.Comparisons[1].Status != Improved {
		t.Fatalf("req/s: %v, %v", v.Comparisons[0].Status, v.Comparisons[1].Status)
	}
}

// TestExactUnits: allocs/op 0 -> 1 is a regression without a test;
// all-equal B/op is unchanged, not "cannot decide"; exact comparisons are
// not part of Holm's family.
func TestExactUnits(t *testing.T) {
	ten := func(x float64) []float64 {
		xs := make([]float64, 10)
		for i := range xs {
			xs[i] = x
		}
		return xs
	}
	pairs := []Pair{
		{Name: "A", Unit: "allocs/op", Base: ten(0), Head: ten(1)},
		{Name: "A", Unit: "B/op", Base: ten(16), Head: ten(16)},
		{Name: "B", Unit: "allocs/op", Base: ten(3), Head: ten(2)},
		{Name: "C", Unit: "B/op", Base: ten(100), Head: ten(101)},
		{Name: "D", Unit: "B/op", Base: ten(100), Head: ten(200)},
	}
	v := Decide(pairs, Options{MinEffect: 0.05})
	want := []Status{Regressed, Same, Improved, Same, Regressed}
	for i, c := range v.Comparisons {
		if !c.Exact || c.Status != want[i] {
			t.Errorf("%s %s: exact %v status %v, want exact %v", c.Name, c.Unit, c.Exact, c.Status, want[i])
		}
	}
	if v.Tests != 0 || v.Exit() != ExitRegression {
		t.Fatalf("tests %d exit %d", v.Tests, v.Exit())
	}
}

// TestTooFewSamples: at n = 3 a side no test of a 100-benchmark run can
// reach alpha/100; with RequireEquivalence a change past the minimum is
// undecided (exit 3), with the samples that would do.
func TestTooFewSamples(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	pairs := aaRun(r, 99, 3, 0.01)
	pairs = append(pairs, Pair{Name: "Slow", Unit: "sec/op", Base: lognormal(r, 3, 100, 0.01), Head: lognormal(r, 3, 150, 0.01)})
	v := Decide(pairs, Options{MinEffect: 0.05, RequireEquivalence: true})
	slow := v.Comparisons[len(v.Comparisons)-1]
	if v.Exit() != ExitUndecided || slow.Status != Undecided || !strings.Contains(slow.Note, "cannot reach") {
		t.Fatalf("exit %d, slow %v (%s)", v.Exit(), slow.Status, slow.Note)
	}
	if MinP(v.Need, v.Need) > 0.05/100 || MinP(v.Need-1, v.Need-1) <= 0.05/100 {
		t.Fatalf("need %d samples: MinP %g, one fewer %g", v.Need, MinP(v.Need, v.Need), MinP(v.Need-1, v.Need-1))
	}
}

// TestMinP checks the smallest p-value against benchmath's table (n = 3:
// 0.1; n = 5: 0.0079).
func TestMinP(t *testing.T) {
	for n, want := range map[int]float64{1: 1, 3: 0.1, 5: 0.007936507936507936, 9: 4.113533525298231e-05} {
		if got := MinP(n, n); math.Abs(got-want) > 1e-12 {
			t.Errorf("MinP(%d, %d) = %g, want %g", n, n, got, want)
		}
	}
}

// TestHolmStepDown: with p-values 0.001, 0.03, 0.04 at alpha 0.05 Holm
// rejects the first (0.001 <= 0.05/3) and stops at the second (0.03 >
// 0.05/2), so the third is kept though 0.04 < 0.05.
func TestHolmStepDown(t *testing.T) {
	cs := []Comparison{{P: 0.04}, {P: 0.001}, {P: 0.03}}
	holm(cs, []int{0, 1, 2}, 0.05)
	if cs[0].Significant || !cs[1].Significant || cs[2].Significant {
		t.Fatalf("significant: %v %v %v", cs[0].Significant, cs[1].Significant, cs[2].Significant)
	}
	if cs[1].Threshold != 0.05/3 || cs[2].Threshold != 0.05/2 || cs[0].Threshold != 0.05 {
		t.Fatalf("thresholds %g %g %g", cs[0].Threshold, cs[1].Threshold, cs[2].Threshold)
	}
}
