// Package verdict decides whether benchmarks got worse between two sets of
// samples. It is the one verdict of `loopbench compare` and `loopbench
// gate`, so a gate and a later comparison of its files agree.
//
// The rules, in order:
//
//   - Units that are exact by nature (allocs/op, B/op, and any unit whose
//     Unit line says assume=exact) are compared exactly, without a test,
//     when every value on each side is equal: equal is unchanged; any
//     increase of allocs/op is a regression; another unit regresses when
//     the change passes the minimum effect in its worse direction. One
//     sample is enough for such a unit. Exactness is never inferred from
//     the values: two single timings are two samples of noise.
//   - Every other benchmark and unit takes a Mann-Whitney U test
//     (golang.org/x/perf/benchmath, as benchstat), and the family-wise
//     error rate over all the tests of the run is held at Alpha with
//     Holm's step-down procedure. A run compares hundreds of benchmarks:
//     at alpha 0.05 without a correction, 150 comparisons of identical
//     code flag about 7 by chance. Bonferroni (alpha/m for each) holds the
//     rate too, but Holm rejects everything Bonferroni does and more, with
//     no assumption about how the benchmarks depend on each other, which
//     on one machine they do (drift moves them together).
//   - A significant change counts only when it also passes the minimum
//     effect in the unit's worse direction (higher time, lower req/s); a
//     benchmark's effective minimum is the larger of Options.MinEffect and
//     its noise floor.
//   - When the samples are too few for the test to reach the corrected
//     level, a change past the minimum effect in the worse direction is
//     undecided, and the verdict says how many samples per side would do.
//     Both are computed from the observed ties (ReachableP): values that
//     repeat, as integer metrics and rounded figures do, leave fewer
//     distinct orderings and a larger smallest p-value.
package verdict

import (
	"fmt"
	"math"
	"slices"
	"sort"

	"github.com/loopbench/loopbench/internal/benchdata"
	"golang.org/x/perf/benchmath"
)

// Options are the verdict's parameters.
type Options struct {
	Alpha      float64 // family-wise error rate over the run; 0 means 0.05
	MinEffect  float64 // smallest relative change that counts: 0.05 is 5 %
	Floors     Floors  // per-benchmark noise floors, from `gate -aa`; may be nil
	Confidence float64 // of the summaries' intervals; 0 means 0.95
}

// Pair is one benchmark's samples in one unit, base and head.
type Pair struct {
	Group      string // the configuration group, "" when the files hold one
	Name, Unit string
	Better     int // +1 when higher is better, -1 when lower is
	// ExactUnit says the unit is exact by nature (see benchdata.ExactUnit): its
	// samples are compared without a test when they are constant.
	ExactUnit  bool
	Base, Head []float64
}

// Status is the outcome of one comparison.
type Status int

const (
	Same      Status = iota // no significant change, or none past the minimum effect
	Improved                // significantly better, past the minimum effect
	Regressed               // significantly worse, past the minimum effect
	Undecided               // worse past the minimum effect, too few samples to test
)

func (s Status) String() string {
	return [...]string{"~", "improved", "REGRESSION", "undecided"}[s]
}

// Comparison is the verdict on one Pair.
type Comparison struct {
	Pair
	BaseSum, HeadSum benchmath.Summary
	Delta            float64 // head/base - 1 of the centers; ±Inf when base is 0
	Exact            bool    // an exact unit with constant samples, compared without a test
	P                float64 // the U test's p-value (NaN when Exact)
	Threshold        float64 // the Holm level P was held to (NaN when Exact)
	Significant      bool    // P passed Threshold
	MinEffect        float64 // the effective minimum effect
	Status           Status
	Note             string // why, when the status needs a reason
}

// Verdict is the outcome of a run's comparisons.
type Verdict struct {
	Comparisons []Comparison // in the order of the pairs
	Alpha       float64
	Tests       int // comparisons that took a U test: Holm's m
	// Need is, when some comparison is undecided, the samples per side that
	// would let every undecided test reach the run's strictest level,
	// alpha/Tests, given its ties.
	Need int
	// Unreachable counts the undecided comparisons whose ties no sample
	// size up to MaxSamples would resolve.
	Unreachable int
}

// Exit codes of a verdict.
const (
	ExitPass       = 0
	ExitRegression = 1
	ExitUndecided  = 3
)

// Count returns how many comparisons have status s.
func (v *Verdict) Count(s Status) int {
	n := 0
	for i := range v.Comparisons {
		if v.Comparisons[i].Status == s {
			n++
		}
	}
	return n
}

// Regressions returns the regressed comparisons.
func (v *Verdict) Regressions() []*Comparison {
	var out []*Comparison
	for i := range v.Comparisons {
		if v.Comparisons[i].Status == Regressed {
			out = append(out, &v.Comparisons[i])
		}
	}
	return out
}

// Exit returns the exit status: 1 on any regression, else 3 when any
// comparison is undecided, else 0.
func (v *Verdict) Exit() int {
	switch {
	case v.Count(Regressed) > 0:
		return ExitRegression
	case v.Count(Undecided) > 0:
		return ExitUndecided
	}
	return ExitPass
}

// Decide compares every pair. Pairs with an empty side are skipped.
func Decide(pairs []Pair, o Options) *Verdict {
	if o.Alpha <= 0 {
		o.Alpha = 0.05
	}
	if o.Confidence <= 0 {
		o.Confidence = 0.95
	}
	th := &benchmath.Thresholds{CompareAlpha: o.Alpha}
	v := &Verdict{Alpha: o.Alpha}
	var tested []int
	for _, p := range pairs {
		if len(p.Base) == 0 || len(p.Head) == 0 {
			continue
		}
		if p.Better == 0 {
			p.Better = -1
		}
		s1 := benchmath.NewSample(slices.Clone(p.Base), th)
		s2 := benchmath.NewSample(slices.Clone(p.Head), th)
		c := Comparison{Pair: p, P: math.NaN(), Threshold: math.NaN(), MinEffect: max(o.MinEffect, o.Floors.Get(p.Group, p.Name, p.Unit))}
		exactUnit := p.ExactUnit || benchdata.ExactUnit(p.Unit, nil)
		c.Exact = exactUnit && constant(s1.Values) && constant(s2.Values)
		if c.Exact {
			c.BaseSum = benchmath.AssumeExact.Summary(s1, o.Confidence)
			c.HeadSum = benchmath.AssumeExact.Summary(s2, o.Confidence)
		} else {
			c.BaseSum = benchmath.AssumeNothing.Summary(s1, o.Confidence)
			c.HeadSum = benchmath.AssumeNothing.Summary(s2, o.Confidence)
			c.P = benchmath.AssumeNothing.Compare(s1, s2).P
			tested = append(tested, len(v.Comparisons))
		}
		c.Delta = relDelta(c.BaseSum.Center, c.HeadSum.Center)
		v.Comparisons = append(v.Comparisons, c)
	}
	v.Tests = len(tested)
	holm(v.Comparisons, tested, o.Alpha)
	strictest := o.Alpha / float64(max(v.Tests, 1))
	for i := range v.Comparisons {
		c := &v.Comparisons[i]
		worse, better := c.beyond()
		switch {
		case c.Exact:
			c.decideExact(worse, better)
		case c.Significant && worse:
			c.Status = Regressed
		case c.Significant && better:
			c.Status = Improved
		case c.Significant:
			c.Note = fmt.Sprintf("significant, within the %s minimum effect", pct(c.MinEffect))
		case worse:
			c.undecided(v, strictest)
		}
	}
	return v
}

// undecided marks c undecided when its samples, with their ties, cannot
// reach the strictest level at all, and raises v.Need to the samples per
// side that would.
func (c *Comparison) undecided(v *Verdict, strictest float64) {
	reach := ReachableP(c.Base, c.Head)
	if reach <= strictest {
		return // the test could have decided: it found no difference
	}
	c.Status = Undecided
	c.Note = fmt.Sprintf("n=%d+%d cannot reach p<%.2g", len(c.Base), len(c.Head), strictest)
	if reach > MinP(len(c.Base), len(c.Head))*(1+1e-9) {
		c.Note += fmt.Sprintf(": with these ties the smallest p is %.2g", reach)
	}
	if n := SamplesForTies(c.Base, c.Head, strictest); n > 0 {
		v.Need = max(v.Need, n)
	} else {
		v.Unreachable++
	}
}

// decideExact is the verdict on deterministic samples.
func (c *Comparison) decideExact(worse, better bool) {
	switch {
	case c.BaseSum.Center == c.HeadSum.Center:
		c.Note = "exact"
	case c.Unit == "allocs/op" && c.HeadSum.Center > c.BaseSum.Center:
		c.Status, c.Note = Regressed, "exact: more allocations"
	case c.Unit == "allocs/op":
		c.Status, c.Note = Improved, "exact: fewer allocations"
	case worse:
		c.Status, c.Note = Regressed, "exact"
	case better:
		c.Status, c.Note = Improved, "exact"
	default:
		c.Note = fmt.Sprintf("exact, within the %s minimum effect", pct(c.MinEffect))
	}
}

// beyond reports whether the change passes the minimum effect in the
// worse and in the better direction of the unit.
func (c *Comparison) beyond() (worse, better bool) {
	d := c.Delta
	if math.IsNaN(d) {
		return false, false
	}
	if c.Better > 0 {
		d = -d
	}
	return d > c.MinEffect, d < -c.MinEffect
}

// holm marks the tested comparisons whose p-values pass Holm's step-down
// procedure at family-wise level alpha: sorted by p, the k-th smallest
// (from 0) is held to alpha/(m-k), and the first that fails stops it.
func holm(cs []Comparison, tested []int, alpha float64) {
	order := slices.Clone(tested)
	sort.SliceStable(order, func(a, b int) bool { return cs[order[a]].P < cs[order[b]].P })
	m := len(order)
	stopped := false
	for k, i := range order {
		c := &cs[i]
		c.Threshold = alpha / float64(m-k)
		if !stopped && c.P <= c.Threshold {
			c.Significant = true
			continue
		}
		stopped = true
	}
}

func constant(xs []float64) bool {
	for _, x := range xs[1:] {
		if x != xs[0] {
			return false
		}
	}
	return true
}

func relDelta(base, head float64) float64 {
	switch {
	case base == head:
		return 0
	case base == 0:
		return math.Copysign(math.Inf(1), head)
	}
	return head/base - 1
}

// MinP is the smallest two-sided p-value a Mann-Whitney U test can give
// for samples of n1 and n2 values without ties: 2 / C(n1+n2, n1).
func MinP(n1, n2 int) float64 {
	if n1 == 0 || n2 == 0 {
		return 1
	}
	lg := func(x int) float64 { v, _ := math.Lgamma(float64(x) + 1); return v }
	return min(1, 2*math.Exp(lg(n1)+lg(n2)-lg(n1+n2)))
}

// SamplesFor returns the smallest n for which n samples per side without
// ties can reach p <= level.
func SamplesFor(level float64) int {
	n := 1
	for MinP(n, n) > level && n < MaxSamples {
		n++
	}
	return n
}

// MaxSamples bounds the samples per side SamplesForTies looks at.
const MaxSamples = 200

// ReachableP is the smallest two-sided p-value the U test (benchmath's,
// as Decide runs it) can give for any split of the pooled values of base
// and head into samples of their sizes: the split with one side wholly
// below the other. With ties it is larger than MinP: the tied values
// cannot be ordered, so fewer splits are as extreme.
func ReachableP(base, head []float64) float64 {
	n1 := len(base)
	if n1 == 0 || len(head) == 0 {
		return 1
	}
	pooled := slices.Concat(base, head)
	slices.Sort(pooled)
	th := &benchmath.Thresholds{CompareAlpha: 0.05}
	p := func(x1, x2 []float64) float64 {
		s1 := benchmath.NewSample(slices.Clone(x1), th)
		s2 := benchmath.NewSample(slices.Clone(x2), th)
		return benchmath.AssumeNothing.Compare(s1, s2).P
	}
	n2 := len(head)
	return min(p(pooled[:n1], pooled[n1:]), p(pooled[n2:], pooled[:n2]))
}

// SamplesForTies returns the smallest n per side for which samples with
// the ties of base and head (each side's values repeated in turn up to n)
// can reach p <= level, or 0 when none up to MaxSamples can.
func SamplesForTies(base, head []float64, level float64) int {
	if len(base) == 0 || len(head) == 0 {
		return 0
	}
	ok := func(n int) bool { return ReachableP(cycle(base, n), cycle(head, n)) <= level }
	lo := max(len(base), len(head)) // ok(lo) is false or lo is the answer
	if ok(lo) {
		return lo
	}
	hi := lo
	for !ok(hi) { // the smallest p falls as n grows: find a bound, then bisect
		if hi == MaxSamples {
			return 0
		}
		lo, hi = hi, min(2*hi, MaxSamples)
	}
	for hi-lo > 1 {
		mid := (lo + hi) / 2
		if ok(mid) {
			hi = mid
		} else {
			lo = mid
		}
	}
	return hi
}

// cycle returns n values: xs repeated in turn.
func cycle(xs []float64, n int) []float64 {
	out := make([]float64, n)
	for i := range out {
		out[i] = xs[i%len(xs)]
	}
	return out
}

func pct(f float64) string { return fmt.Sprintf("%.3g%%", 100*f) }
