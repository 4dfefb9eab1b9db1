package verdict

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

func repeat(x float64, n int) []float64 {
	xs := make([]float64, n)
	for i := range xs {
		xs[i] = x
	}
	return xs
}

// TestAmortisedUnits: allocs/op, B/op and syscalls/op are never
// undecided; equal medians are equal, a difference below one allocation
// (8 B, one system call) per op is "~", and so is one the smallest values
// do not share; a whole allocation more per op is a regression, and
// system calls past the A/A spread and the minimum effect one
// (TestSyscallsRule has the rest of syscalls/op's rule).
func TestAmortisedUnits(t *testing.T) {
	mostly := func(x, other float64, n, at int) []float64 { xs := repeat(x, n); xs[at] = other; return xs }
	cases := []struct {
		name, unit string
		base, head []float64
		want       Status
	}{
		{"one sample each, B/op 1 to 2 (setup amortised)", "B/op", []float64{1}, []float64{2}, Same},
		{"medians 0, a runtime allocation in one round", "B/op", mostly(0, 106, 10, 3), mostly(0, 48, 10, 7), Same},
		{"4 ± 25 % on both sides", "B/op", []float64{3, 4, 4, 5, 4, 3, 5, 4}, []float64{4, 5, 3, 4, 4, 4, 5, 3}, Same},
		{"medians 4 and 5, smallest both 4", "allocs/op", []float64{4, 4, 5, 4}, []float64{4, 5, 5, 5}, Same},
		{"under 8 B per op", "B/op", repeat(100, 5), repeat(104, 5), Same},
		{"past 8 B, within the minimum effect", "B/op", repeat(1000, 5), repeat(1010, 5), Same},
		{"one allocation more, one sample", "allocs/op", []float64{0}, []float64{1}, Regressed},
		{"one allocation more, an outlier on base", "allocs/op", mostly(4, 5, 60, 0), repeat(5, 60), Regressed},
		{"one allocation fewer", "allocs/op", repeat(3, 10), repeat(2, 10), Improved},
		{"twice the bytes", "B/op", []float64{100, 101, 100}, []float64{200, 200, 203}, Regressed},
		{"the runtime's system calls, 75 and 85 per million ops", "syscalls/op", repeat(75e-6, 2), repeat(85e-6, 2), Same},
		{"two system calls per op more", "syscalls/op", repeat(2, 2), repeat(4, 2), Regressed},
		{"a timer's system call gone", "syscalls/op", repeat(1.01, 2), repeat(0.0005, 2), Improved},
		{"two more of a thousand, within the minimum effect", "syscalls/op", []float64{1005, 1006}, []float64{1007, 1008}, Same},
	}
	for _, c := range cases {
		v := Decide([]Pair{{Name: "X", Unit: c.unit, Base: c.base, Head: c.head}}, Options{MinEffect: 0.05, RequireEquivalence: true})
		got := v.Comparisons[0]
		if got.Rule != RuleAmortised || got.Status != c.want || v.Tests != 0 {
			t.Errorf("%s: rule %v status %v (%s), want amortised %v", c.name, got.Rule, got.Status, got.Note, c.want)
		}
	}
}

// TestRangeRule: an exact unit whose repeats disagree is judged on the
// ranges: a regression when head's smallest is above base's largest by
// more than the minimum effect, an improvement the other way, "~" when
// every ratio of the ranges is within it, and only then undecided.
func TestRangeRule(t *testing.T) {
	cases := []struct {
		name       string
		better     int
		base, head []float64
		want       Status
	}{
		{"separated past the minimum", -1, []float64{100, 101}, []float64{103, 104}, Regressed},
		{"separated past the minimum, better way", -1, []float64{100, 101}, []float64{95, 96}, Improved},
		{"overlapping within the minimum", -1, []float64{100, 100.3}, []float64{100.2, 100.5}, Same},
		{"separated but within the minimum", -1, []float64{100, 100.2}, []float64{100.5, 100.6}, Same},
		{"overlapping across the minimum", -1, []float64{100, 102}, []float64{101, 103}, Undecided},
		{"separated by less than the minimum, spanning it", -1, []float64{100, 101}, []float64{101.5, 102.5}, Undecided},
		{"higher is better: a drop past the minimum", 1, []float64{100, 101}, []float64{95, 96}, Regressed},
		{"base all zero, head counts", -1, []float64{0, 0}, []float64{1, 2}, Regressed},
	}
	for _, c := range cases {
		p := Pair{Name: "X", Unit: "instructions/op", ExactUnit: true, Better: c.better, Base: c.base, Head: c.head}
		v := Decide([]Pair{p}, Options{MinEffect: 0.01})
		got := v.Comparisons[0]
		if got.Rule != RuleRange || got.Status != c.want || !got.Exact {
			t.Errorf("%s: rule %v status %v (%s), want range %v", c.name, got.Rule, got.Status, got.Note, c.want)
		}
	}
	// Constant samples keep the exact rule: any change past the minimum.
	v := Decide([]Pair{{Name: "X", Unit: "instructions/op", ExactUnit: true, Base: []float64{100, 100}, Head: []float64{102, 102}}}, Options{MinEffect: 0.01})
	if c := v.Comparisons[0]; c.Rule != RuleExact || c.Status != Regressed {
		t.Fatalf("constant counts: rule %v status %v", c.Rule, c.Status)
	}
}

// TestEstCyclesTwiceTheMinimum: est-cycles/op is judged at twice the
// minimum effect, instructions/op at it: the same +0.8 % with repeats
// 0.1 % apart is a regression in instructions at 0.5 % and "~" in
// estimated cycles.
func TestEstCyclesTwiceTheMinimum(t *testing.T) {
	base, head := []float64{1000, 1001}, []float64{1008, 1009}
	var ps []Pair
	for _, u := range []string{"instructions/op", "est-cycles/op"} {
		ps = append(ps, Pair{Name: "X", Unit: u, ExactUnit: true, Base: base, Head: head})
	}
	v := Decide(ps, Options{MinEffect: 0.005})
	if c := v.Comparisons[0]; c.Status != Regressed || c.MinEffect != 0.005 {
		t.Errorf("instructions/op: %v at %v (%s)", c.Status, c.MinEffect, c.Note)
	}
	if c := v.Comparisons[1]; c.Status != Same || c.MinEffect != 0.01 {
		t.Errorf("est-cycles/op: %v at %v (%s)", c.Status, c.MinEffect, c.Note)
	}
}

// TestRangeExitCodes: an undecided range makes the run exit 3, unless a
// decided regression makes it 1; the undecided are counted.
func TestRangeExitCodes(t *testing.T) {
	undecided := Pair{Name: "U", Unit: "instructions/op", ExactUnit: true, Base: []float64{100, 102}, Head: []float64{101, 103}}
	same := Pair{Name: "S", Unit: "instructions/op", ExactUnit: true, Base: []float64{100, 100}, Head: []float64{100, 100}}
	regressed := Pair{Name: "R", Unit: "instructions/op", ExactUnit: true, Base: []float64{100, 100.5}, Head: []float64{110, 111}}
	o := Options{MinEffect: 0.01}
	if v := Decide([]Pair{undecided, same}, o); v.Exit() != ExitUndecided || v.Count(Undecided) != 1 || len(v.Undecided()) != 1 {
		t.Fatalf("undecided range: exit %d, %d undecided", v.Exit(), v.Count(Undecided))
	}
	if v := Decide([]Pair{undecided, same, regressed}, o); v.Exit() != ExitRegression || v.Count(Undecided) != 1 {
		t.Fatalf("with a regression: exit %d, %d undecided", v.Exit(), v.Count(Undecided))
	}
	if v := Decide([]Pair{same}, o); v.Exit() != ExitPass {
		t.Fatalf("same: exit %d", v.Exit())
	}
}

// TestPValueWithinReach: benchmath gives p = 0 for one value against
// five equal ones, and more than 1 for others; no p below what the sizes
// can reach (1/3 at 1+5) or above 1 is kept, and as 1/3 is above alpha the
// comparison is undecided.
func TestPValueWithinReach(t *testing.T) {
	for _, p := range []Pair{
		{Name: "A", Unit: "sec/op", Base: []float64{1, 1, 1, 1, 1}, Head: []float64{0.5}},
		{Name: "B", Unit: "sec/op", Base: []float64{5}, Head: []float64{5, 5, 5, 5, 6}},
		{Name: "C", Unit: "sec/op", Base: []float64{7}, Head: []float64{5, 5, 5, 5, 5}},
	} {
		c := Decide([]Pair{p}, Options{MinEffect: 0.05}).Comparisons[0]
		if reach := MinP(len(p.Base), len(p.Head)); c.P < reach || c.P > 1 || c.Status != Undecided {
			t.Errorf("%s: p = %g (reachable %g), status %v", p.Name, c.P, reach, c.Status)
		}
		if r := ReachableP(p.Base, p.Head); r < MinP(len(p.Base), len(p.Head)) || r > 1 {
			t.Errorf("%s: ReachableP = %g", p.Name, r)
		}
	}
}

// TestUndecidedNoteNamesItsLevel: the note of an undecided comparison
// names the Holm level its row shows, not the run's strictest.
func TestUndecidedNoteNamesItsLevel(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 3))
	var pairs []Pair
	for i := range 11 {
		pairs = append(pairs, Pair{Name: fmt.Sprint("Q", i), Unit: "sec/op", Base: lognormal(r, 6, 100, 0.01), Head: lognormal(r, 6, 100, 0.01)})
	}
	pairs = append(pairs, Pair{Name: "Few", Unit: "sec/op", Base: []float64{1}, Head: []float64{0.9, 1.2, 1.3, 1.1, 0.95}})
	v := Decide(pairs, Options{MinEffect: 0.05, RequireEquivalence: true})
	c := v.Comparisons[len(v.Comparisons)-1]
	if c.Status != Undecided || c.Threshold == v.Level() {
		t.Fatalf("status %v, level %g (strictest %g): the example needs a Holm level above the strictest", c.Status, c.Threshold, v.Level())
	}
	if want := fmt.Sprintf("cannot reach p<%.2g", c.Threshold); !strings.Contains(c.Note, want) {
		t.Fatalf("note %q does not name its level %.2g", c.Note, c.Threshold)
	}
}

// TestDefaultPassSaysWhatItCouldDetect: a change past the minimum effect
// that samples too few for alpha cannot test is undecided, with no
// slowdown detectable, with RequireEquivalence or without. With enough
// samples Detectable is the shift at which the test starts to flag.
func TestDefaultPassSaysWhatItCouldDetect(t *testing.T) {
	one := Pair{Name: "T", Unit: "sec/op", Base: []float64{1e-6}, Head: []float64{1.3e-6}}
	v := Decide([]Pair{one}, Options{MinEffect: 0.05})
	if c := &v.Comparisons[0]; c.Status != Undecided || v.Exit() != ExitUndecided || !math.IsInf(v.Detectable(c), 1) {
		t.Fatalf("1+1 samples: status %v exit %d detectable %g", c.Status, v.Exit(), v.Detectable(c))
	}
	if v := Decide([]Pair{one}, Options{MinEffect: 0.05, RequireEquivalence: true}); v.Exit() != ExitUndecided {
		t.Fatalf("1+1 samples, -require-equivalence: exit %d", v.Exit())
	}
	r := rand.New(rand.NewPCG(4, 4))
	for _, better := range []int{-1, 1} {
		base, head := lognormal(r, 20, 100, 0.05), lognormal(r, 20, 100, 0.05)
		v := Decide([]Pair{{Name: "T", Unit: "x/op", Better: better, Base: base, Head: head}}, Options{MinEffect: 0.01})
		d := v.Detectable(&v.Comparisons[0])
		if d <= 0 || d > 0.2 {
			t.Fatalf("better %d: detectable %g at 5 %% noise, n=20", better, d)
		}
		factor := func(d float64) float64 {
			if better > 0 {
				return median(append([]float64(nil), base...)) / median(append([]float64(nil), head...)) / (1 + d)
			}
			return median(append([]float64(nil), base...)) / median(append([]float64(nil), head...)) * (1 + d)
		}
		for _, k := range []struct {
			scale float64
			flag  bool
		}{{1.05, true}, {0.9, false}} {
			shifted := make([]float64, len(head))
			for i := range head {
				shifted[i] = head[i] * factor(d*k.scale)
			}
			v := Decide([]Pair{{Name: "T", Unit: "x/op", Better: better, Base: base, Head: shifted}}, Options{MinEffect: 0.01})
			if got := v.Comparisons[0].Status == Regressed; got != k.flag {
				t.Errorf("better %d: a slowdown of %.3g x detectable %.3g: regressed %v", better, k.scale, d, got)
			}
		}
	}
}

// TestRangeTested: repeats that disagree across the minimum effect are
// undecided with few repeats, and with enough for the U test to reach
// alpha are judged as timings: noise either way is "~", a shift the test
// finds past the minimum effect counts. The samples are drawn with a
// fixed seed around 3,560 instructions with a 3 % spread, as a benchmark
// that allocates afresh each op counts from process to process.
func TestRangeTested(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	draw := func(n int, center float64) []float64 {
		xs := make([]float64, n)
		for i := range xs {
			xs[i] = center * (1 + 0.03*(r.Float64()-0.5))
		}
		return xs
	}
	o := Options{MinEffect: 0.005}
	judge := func(base, head []float64) Comparison {
		return Decide([]Pair{{Name: "X", Unit: "instructions/op", ExactUnit: true, Base: base, Head: head}}, o).Comparisons[0]
	}
	if c := judge(draw(2, 3560), draw(2, 3560)); c.Status != Undecided || !math.IsNaN(c.P) {
		t.Errorf("2+2 repeats: %v p=%v (%s), want undecided without a test", c.Status, c.P, c.Note)
	}
	for i := range 20 {
		if c := judge(draw(5, 3560), draw(5, 3560)); c.Rule != RuleRange || c.Status != Same || math.IsNaN(c.P) {
			t.Errorf("A/A %d: %v p=%v (%s), want ~ by the U test", i, c.Status, c.P, c.Note)
		}
	}
	// Overlapping ranges, one pair out of order: the range rule cannot
	// tell, the U test can.
	base, head := []float64{100, 101, 102, 103, 104.5}, []float64{103.9, 105, 106, 107, 108}
	if c := judge(base, head); c.Status != Regressed || !c.Significant {
		t.Errorf("overlapping, shifted: %v p=%v (%s), want a regression by the U test", c.Status, c.P, c.Note)
	}
	if c := judge(head, base); c.Status != Improved || !c.Significant {
		t.Errorf("overlapping, shifted down: %v p=%v (%s), want an improvement by the U test", c.Status, c.P, c.Note)
	}
}
