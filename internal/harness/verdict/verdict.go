// Package verdict decides whether benchmarks got worse between two sets of
// samples. It is the one verdict of `loopbench compare` and `loopbench
// gate`, so a gate and a later comparison of its files agree, and it
// prints itself: Judge reads and decides two files, WriteText prints
// benchstat's tables, NewJSONReport the same as one object. Settings
// are the verdict's flags as given; Options checks them.
//
// The rules, in order:
//
//   - allocs/op, B/op and syscalls/op are integers amortised over b.N:
//     what the operation allocates or asks of the kernel plus a share of
//     the benchmark's setup and the runtime's own work, which differs
//     from process to process. They are judged without a test
//     (RuleAmortised): equal medians are equal; medians closer than one
//     allocation or one system call per op (MinAmortisedStep) are "~";
//     otherwise the smallest values must differ by as much, in the same
//     direction (the amortised share only ever adds, so each side's
//     smallest value is nearest its operation's own count). A whole
//     allocation more per op is a regression; B/op counts when it also
//     passes the minimum effect (an operation that makes a thousand
//     system calls is not worse for one more in some of them).
//     syscalls/op, which the runtime's timing moves by a stray call a
//     window (SyscallNoise), counts when the sides' ranges of repeats lie
//     more than SyscallNoise apart, or at least one call apart with
//     instructions/op moved the same way, and past the minimum effect.
//     Never undecided.
//   - Other units exact by nature (a Unit line's assume=exact, as
//     instruction counts) are compared exactly, without a test, when every
//     value on each side is equal (RuleExact): equal is unchanged;
//     otherwise the change counts past the minimum effect. One sample is
//     enough for such a unit. Exactness is never inferred from the values:
//     two single timings are two samples of noise. When the repeats
//     disagree they are judged on their ranges (RuleRange): a regression
//     when head's smallest value is above base's largest by more than the
//     minimum effect, an improvement the other way, "~" when every ratio
//     of the two ranges lies within the minimum effect. Ranges that
//     cannot decide, with enough counts a side for the U test to reach
//     Alpha, take the U test below; with fewer they are undecided.
//     est-cycles/op takes twice the minimum effect (UnitMinEffect).
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
//   - A test whose sample sizes cannot reach Alpha at all, whatever the
//     values (MinP above it: 3+3 samples give p >= 0.1), is undecided:
//     it could not have flagged any change, so it neither passes nor
//     fails, and the verdict says how many samples per side would do.
//   - A tested change that is not significant passes, and the verdict
//     says how large a slowdown the run could have flagged (Detectable):
//     a pass never claims more than the samples' noise allowed. With
//     Options.RequireEquivalence, when the samples are too few for the
//     test to reach its Holm level, a change past the minimum effect in
//     the worse direction is undecided instead, and the verdict says how
//     many samples per side would do. Both are computed from the observed
//     ties (ReachableP): values that repeat, as integer metrics and
//     rounded figures do, leave fewer distinct orderings and a larger
//     smallest p-value.
package verdict

import (
	"fmt"
	"math"
	"slices"
	"sort"

	"golang.org/x/perf/benchmath"
)

// Options are the verdict's parameters.
type Options struct {
	Alpha      float64 // family-wise error rate over the run; 0 means 0.05
	MinEffect  float64 // smallest relative change that counts: 0.05 is 5 %
	Floors     Floors  // per-benchmark noise floors, from `gate -aa`; may be nil
	Confidence float64 // of the summaries' intervals; 0 means 0.95
	// RequireEquivalence makes a tested comparison that is neither
	// significant nor placed within the minimum effect by both sides'
	// intervals undecided (exit 3) rather than a pass.
	RequireEquivalence bool
}

// Pair is one benchmark's samples in one unit, base and head.
type Pair struct {
	Group      string // the configuration group, "" when the files hold one
	Name, Unit string
	Better     int // +1 when higher is better, -1 when lower is
	// ExactUnit says the unit's metadata marks it exact (see
	// benchdata.ExactUnit): its samples are compared without a test (see
	// RuleOf).
	ExactUnit  bool
	Base, Head []float64
}

// Status is the outcome of one comparison.
type Status int

const (
	Same      Status = iota // no significant change, or none past the minimum effect
	Improved                // significantly better, past the minimum effect
	Regressed               // significantly worse, past the minimum effect
	Undecided               // the samples cannot tell (see the package comment)
)

func (s Status) String() string {
	return [...]string{"~", "improved", "REGRESSION", "undecided"}[s]
}

// Comparison is the verdict on one Pair.
type Comparison struct {
	Pair
	// BaseSum and HeadSum are, for the U test, each side's center and
	// confidence interval; for the rules without a test, its median and
	// its range (Lo the smallest value, Hi the largest).
	BaseSum, HeadSum benchmath.Summary
	Delta            float64 // head/base - 1 of the centers; ±Inf when base is 0
	Rule             Rule    // how it was judged
	Exact            bool    // judged without a test: Rule is not RuleUTest
	P                float64 // the U test's p-value (NaN when Exact)
	Threshold        float64 // the Holm level P was held to (NaN when Exact)
	Significant      bool    // P passed Threshold
	MinEffect        float64 // the effective minimum effect
	Status           Status
	// Equal says every value of both sides is one and the same: an exact
	// or amortised comparison with nothing to show.
	Equal bool
	Note  string // why, when the status needs a reason beyond the rule
}

// Verdict is the outcome of a run's comparisons.
type Verdict struct {
	Comparisons []Comparison // in the order of the pairs
	Alpha       float64
	Tests       int // comparisons that took a U test: Holm's m
	// Need is, when some comparison is undecided, the samples per side that
	// would likely decide every undecided test: reach the run's strictest
	// level, alpha/Tests, given its ties, or narrow its intervals within
	// the minimum effect.
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
	v := &Verdict{Alpha: o.Alpha}
	var tested []int
	for _, p := range pairs {
		if len(p.Base) == 0 || len(p.Head) == 0 {
			continue
		}
		c := summarize(p, o)
		uTest := c.Rule == RuleUTest
		if c.rangeTestable(o.Alpha) {
			c.P, uTest = c.rangeP(o.Alpha), true
		}
		if uTest {
			tested = append(tested, len(v.Comparisons))
		}
		v.Comparisons = append(v.Comparisons, c)
	}
	v.Tests = len(tested)
	holm(v.Comparisons, tested, o.Alpha)
	for i := range v.Comparisons {
		c := &v.Comparisons[i]
		worse, better := c.beyond()
		switch {
		case c.Rule == RuleExact:
			c.decideExact(worse, better)
		case c.Rule == RuleAmortised && c.Unit == SyscallsUnit:
			// decideSyscalls, beside the benchmark's instructions/op
		case c.Rule == RuleAmortised:
			c.decideAmortised(worse, better)
		case c.Rule == RuleRange:
			c.decideRange()
		case !Reachable(len(c.Base), len(c.Head), o.Alpha):
			c.undecided(v, o.Alpha/float64(max(v.Tests, 1)))
		case c.Significant && worse:
			c.Status = Regressed
		case c.Significant && better:
			c.Status = Improved
		case c.Significant:
			c.Note = fmt.Sprintf("significant, within the %s minimum effect", pct(c.MinEffect))
		case worse && o.RequireEquivalence:
			c.undecided(v, o.Alpha/float64(max(v.Tests, 1)))
		case worse:
			c.Note = "not significant"
		}
	}
	v.decideSyscalls()
	if o.RequireEquivalence {
		v.requireEquivalence(o.Alpha / float64(max(v.Tests, 1)))
	}
	return v
}

// requireEquivalence marks undecided every tested comparison that is
// neither significant nor placed within its minimum effect by both
// sides' intervals, and sets v.Need to the samples per side that would
// likely decide them all.
func (v *Verdict) requireEquivalence(strictest float64) {
	for i := range v.Comparisons {
		c := &v.Comparisons[i]
		if c.Rule != RuleUTest || c.Status != Same || c.Decided() {
			continue
		}
		c.Status = Undecided
		c.Note = fmt.Sprintf("neither significant nor within the %s minimum effect", pct(c.MinEffect))
		v.Need = max(v.Need, c.roundsToDecide(strictest))
	}
}

// summarize returns the comparison of p before its verdict: its rule,
// summaries, delta and, for the U test, p-value.
func summarize(p Pair, o Options) Comparison {
	if p.Better == 0 {
		p.Better = -1
	}
	th := &benchmath.Thresholds{CompareAlpha: o.Alpha}
	s1 := benchmath.NewSample(slices.Clone(p.Base), th)
	s2 := benchmath.NewSample(slices.Clone(p.Head), th)
	c := Comparison{Pair: p, P: math.NaN(), Threshold: math.NaN(), MinEffect: max(UnitMinEffect(p.Unit, o.MinEffect), o.Floors.Get(p.Group, p.Name, p.Unit))}
	c.Rule = ruleOf(p, s1.Values, s2.Values)
	c.Exact = c.Rule != RuleUTest
	switch c.Rule {
	case RuleUTest:
		c.BaseSum = benchmath.AssumeNothing.Summary(s1, o.Confidence)
		c.HeadSum = benchmath.AssumeNothing.Summary(s2, o.Confidence)
		c.P = uTestP(s1, s2)
	default:
		c.BaseSum, c.HeadSum = rangeSummary(s1.Values), rangeSummary(s2.Values)
	}
	c.Delta = relDelta(c.BaseSum.Center, c.HeadSum.Center)
	return c
}

// uTestP is benchmath's Mann-Whitney U p-value held within what the
// samples' sizes can give: benchmath's exact distribution with ties
// returns 0, or more than 1, when a side holds one value (1 against five
// equal values gives 0, where no split of 1+5 values goes below 1/3).
func uTestP(s1, s2 *benchmath.Sample) float64 {
	p := benchmath.AssumeNothing.Compare(s1, s2).P
	return min(1, max(p, MinP(len(s1.Values), len(s2.Values))))
}

// undecided marks c undecided when its samples, with their ties, cannot
// reach the Holm level the table shows for it, and raises v.Need to the
// samples per side that would reach the run's strictest level.
func (c *Comparison) undecided(v *Verdict, strictest float64) {
	reach := ReachableP(c.Base, c.Head)
	if reach <= c.Threshold {
		return // the test could have decided: it found no difference
	}
	c.Status = Undecided
	c.Note = fmt.Sprintf("n=%d+%d cannot reach p<%.2g", len(c.Base), len(c.Head), c.Threshold)
	if reach > MinP(len(c.Base), len(c.Head))*(1+1e-9) {
		c.Note += fmt.Sprintf(": with these ties the smallest p is %.2g", reach)
	}
	if n := SamplesForTies(c.Base, c.Head, strictest); n > 0 {
		v.Need = max(v.Need, n)
	} else {
		v.Unreachable++
	}
}

// decideExact is the verdict on deterministic samples of an exact unit.
func (c *Comparison) decideExact(worse, better bool) {
	switch {
	case c.BaseSum.Center == c.HeadSum.Center:
		c.Equal = true
	case worse:
		c.Status = Regressed
	case better:
		c.Status = Improved
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

// Reachable reports whether a U test on samples of n1 and n2 values can
// give a p-value at or below level at all: MinP(n1, n2) <= level.
func Reachable(n1, n2 int, level float64) bool {
	return MinP(n1, n2) <= level*(1+1e-9)
}

// SamplesFor returns the smallest n for which n samples per side without
// ties can reach p <= level.
func SamplesFor(level float64) int {
	n := 1
	for !Reachable(n, n, level) && n < MaxSamples {
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
	return min(1, max(MinP(n1, n2), min(p(pooled[:n1], pooled[n1:]), p(pooled[n2:], pooled[:n2]))))
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
