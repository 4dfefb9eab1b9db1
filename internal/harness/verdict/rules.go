package verdict

import (
	"fmt"
	"math"
	"slices"

	"github.com/loopbench/loopbench/internal/measure/benchdata"
	"golang.org/x/perf/benchmath"
)

// Rule is how a comparison is judged.
type Rule int

const (
	RuleUTest     Rule = iota // Mann-Whitney U test, Holm across the run
	RuleExact                 // an exact unit, every value on each side equal
	RuleRange                 // an exact unit whose repeats disagree: judged on the ranges
	RuleAmortised             // allocs/op, B/op, syscalls/op: integers amortised over b.N
)

func (r Rule) String() string {
	return [...]string{"u-test", "exact", "range", "amortised"}[r]
}

// RuleOf returns the rule that judges a pair of unit with base and head
// values. exactUnit says the unit's metadata marks it exact.
// internal/harness/report and compare call it to agree on how a cell is read.
func RuleOf(unit string, exactUnit bool, base, head []float64) Rule {
	switch {
	case AmortisedUnit(unit):
		return RuleAmortised
	case !exactUnit && !benchdata.ExactUnit(unit, nil):
		return RuleUTest
	case constant(base) && constant(head):
		return RuleExact
	}
	return RuleRange
}

// AmortisedUnit reports whether unit counts whole things (allocations,
// bytes, system calls) spread over b.N, judged by RuleAmortised.
func AmortisedUnit(unit string) bool {
	return unit == "allocs/op" || unit == "B/op" || unit == "syscalls/op"
}

func ruleOf(p Pair, base, head []float64) Rule { return RuleOf(p.Unit, p.ExactUnit, base, head) }

// EstCyclesUnit is callgrind's estimated cycles per op, judged at twice
// the minimum effect (UnitMinEffect).
const EstCyclesUnit = "est-cycles/op"

// UnitMinEffect is the minimum effect that judges unit when the run's is
// minEffect: twice it for est-cycles/op. Estimated cycles weigh each
// simulated cache miss as 5 or 35 instructions, and the misses follow
// the Go runtime's time-driven work in a window (a preemption runs cold
// scheduler code) as well as the code's, so from process to process they
// spread about twice as far as the instructions: in pull-request A/A
// gates on a 2-core VM, a CallSoon chain's instructions/op moved +0.33 %
// and +0.22 % where its est-cycles/op moved +0.62 % and +0.48 %.
func UnitMinEffect(unit string, minEffect float64) float64 {
	if unit == EstCyclesUnit {
		return 2 * minEffect
	}
	return minEffect
}

// MinAmortisedStep is the smallest change of an amortised unit that can be
// the operation's own: one allocation or one system call per op, and for
// B/op the smallest allocation Go makes (its smallest size class, 8
// bytes). Below it, a difference is a share of setup or of the runtime's
// own work spread over b.N, which differs between processes (B/op 1 in
// one, 2 in the next, on identical code; under callgrind the scheduler's
// timed network polls and the monitor thread's sleeps, 75 system calls
// per million operations in one process and 85 in the next).
func MinAmortisedStep(unit string) float64 {
	if unit == "B/op" {
		return 8
	}
	return 1
}

// rangeSummary summarizes values judged without a test: their median as
// the center and their range as the interval.
func rangeSummary(xs []float64) benchmath.Summary {
	return benchmath.Summary{Center: median(slices.Clone(xs)), Lo: slices.Min(xs), Hi: slices.Max(xs), Confidence: 1}
}

// decideAmortised is the verdict on allocs/op and B/op (see the package
// comment): never undecided.
func (c *Comparison) decideAmortised(worse, better bool) {
	step := MinAmortisedStep(c.Unit)
	b, h := c.BaseSum.Center, c.HeadSum.Center
	up := h > b
	lowB, lowH := c.BaseSum.Lo, c.HeadSum.Lo
	switch {
	case b == h && c.BaseSum.Lo == c.BaseSum.Hi && c.HeadSum.Lo == c.HeadSum.Hi:
		c.Equal = true
	case b == h:
		c.Note = "amortised: equal medians"
	case math.Abs(h-b) < step:
		c.Note = fmt.Sprintf("amortised: medians within %s", stepString(c.Unit, step))
	case up && lowH-lowB < step, !up && lowB-lowH < step:
		c.Note = fmt.Sprintf("amortised: the smallest values within %s", stepString(c.Unit, step))
	case c.Unit == "allocs/op" && up:
		c.Status, c.Note = Regressed, "amortised: more allocations"
	case c.Unit == "allocs/op":
		c.Status, c.Note = Improved, "amortised: fewer allocations"
	case worse:
		c.Status, c.Note = Regressed, "amortised"
	case better:
		c.Status, c.Note = Improved, "amortised"
	default:
		c.Note = fmt.Sprintf("amortised, within the %s minimum effect", pct(c.MinEffect))
	}
}

func stepString(unit string, step float64) string {
	switch unit {
	case "B/op":
		return fmt.Sprintf("%g B per op", step)
	case "syscalls/op":
		return "one system call per op"
	}
	return "one allocation per op"
}

// decideRange is the verdict on an exact unit whose repeats disagree:
// on the ranges of the two sides (see the package comment).
func (c *Comparison) decideRange() {
	lo, hi := ratioRange(c.BaseSum, c.HeadSum)
	if c.Better > 0 {
		lo, hi = -hi, -lo
	}
	switch c.Status = rangeStatus(lo, hi, c.MinEffect); c.Status {
	case Regressed:
		c.Note = fmt.Sprintf("range: worse by %s at least", pct(lo))
	case Improved:
		c.Note = fmt.Sprintf("range: better by %s at least", pct(-hi))
	case Same:
		c.Note = fmt.Sprintf("range: within the %s minimum effect", pct(c.MinEffect))
	default:
		c.Note = fmt.Sprintf("range: the repeats allow %s to %s, across the %s minimum effect", pctSigned(lo), pctSigned(hi), pct(c.MinEffect))
		if !math.IsNaN(c.P) {
			c.decideRangeByTest(lo, hi)
		}
	}
}

// rangeTestable says the range rule cannot decide c and each side holds
// enough repeats for the U test to reach alpha: then rangeP tests it, and
// the comparison joins the run's Holm family. Counts whose repeats still
// disagree after every recount (a benchmark that allocates afresh each
// op: the runtime's heap state moves its instructions by a few per cent
// from process to process) are samples of noise, judged as timings are.
func (c *Comparison) rangeTestable(alpha float64) bool {
	return c.Rule == RuleRange && RangeUndecided(c.Base, c.Head, c.MinEffect) && Reachable(len(c.Base), len(c.Head), alpha)
}

// rangeP is the U test's p for c's repeats taken as samples.
func (c *Comparison) rangeP(alpha float64) float64 {
	th := &benchmath.Thresholds{CompareAlpha: alpha}
	return uTestP(benchmath.NewSample(slices.Clone(c.Base), th), benchmath.NewSample(slices.Clone(c.Head), th))
}

// decideRangeByTest is the verdict on a range rangeP tested: a change
// counts when the U test finds it at its Holm level and the medians differ
// by more than the minimum effect; otherwise it is "~".
func (c *Comparison) decideRangeByTest(lo, hi float64) {
	worse, better := c.beyond()
	test := fmt.Sprintf("U test p=%.3g (%.2g)", c.P, c.Threshold)
	switch {
	case c.Significant && worse:
		c.Status, c.Note = Regressed, fmt.Sprintf("range %s to %s; %s", pctSigned(lo), pctSigned(hi), test)
	case c.Significant && better:
		c.Status, c.Note = Improved, fmt.Sprintf("range %s to %s; %s", pctSigned(lo), pctSigned(hi), test)
	default:
		c.Status = Same
		c.Note = fmt.Sprintf("repeats disagree (%s to %s); %s, no change past the %s minimum effect", pctSigned(lo), pctSigned(hi), test, pct(c.MinEffect))
	}
}

// rangeStatus judges the changes from lo to hi (worse positive) that two
// ranges allow against minEffect.
func rangeStatus(lo, hi, minEffect float64) Status {
	switch {
	case lo > minEffect:
		return Regressed
	case hi < -minEffect:
		return Improved
	case lo >= -minEffect && hi <= minEffect:
		return Same
	}
	return Undecided
}

// RangeUndecided says the range rule cannot decide base against head at
// minEffect: the changes their ranges allow cross it. An instruction
// gate asks it before the verdict, to count such a benchmark again at
// wider windows.
func RangeUndecided(base, head []float64, minEffect float64) bool {
	if len(base) == 0 || len(head) == 0 {
		return false
	}
	lo, hi := ratioRange(rangeSummary(base), rangeSummary(head))
	return rangeStatus(lo, hi, minEffect) == Undecided
}

// ratioRange returns the smallest and the largest head/base - 1 the two
// ranges allow.
func ratioRange(base, head benchmath.Summary) (lo, hi float64) {
	return relDelta(base.Hi, head.Lo), relDelta(base.Lo, head.Hi)
}

func pctSigned(f float64) string {
	if math.IsInf(f, 0) {
		return fmt.Sprintf("%+.0f", f)
	}
	return fmt.Sprintf("%+.3g%%", 100*f)
}
