package verdict

import (
	"math"
	"slices"

	"golang.org/x/perf/benchmath"
)

// Level is the p-value a new significant change of any tested comparison
// of v is sure to pass: alpha over the number of tests, where Holm's
// procedure starts (a p at or below it is rejected whatever the others').
func (v *Verdict) Level() float64 { return v.Alpha / float64(max(v.Tests, 1)) }

// Detectable returns the smallest slowdown, relative to base, that the U
// test on c's samples would have flagged at v.Level(): head's values are
// moved to base's median, keeping their spread, and then made worse by a
// growing factor until the test rejects. It is +Inf when no slowdown
// would do (too few samples for the level, ties counted) and NaN for a
// comparison judged without a test. A passing verdict holds only for
// slowdowns at least this large (and past the minimum effect).
func (v *Verdict) Detectable(c *Comparison) float64 {
	if c.Rule != RuleUTest {
		return math.NaN()
	}
	return detectable(c.Base, c.Head, c.Better, v.Level())
}

// Sensitivity returns the smallest slowdown the run could have flagged on
// every tested comparison that did not regress: the largest of their
// Detectable and minimum effects, with the comparison it comes from (nil
// when nothing was tested).
func (v *Verdict) Sensitivity() (float64, *Comparison) {
	worst, at := math.NaN(), (*Comparison)(nil)
	for i := range v.Comparisons {
		c := &v.Comparisons[i]
		if c.Rule != RuleUTest || c.Status == Regressed {
			continue
		}
		d := max(v.Detectable(c), c.MinEffect)
		if at == nil || d > worst {
			worst, at = d, c
		}
	}
	return worst, at
}

// detectable is Detectable on samples: it bisects over the shifts at
// which a shifted head value crosses a base value, where the test's
// statistic changes.
func detectable(base, head []float64, better int, level float64) float64 {
	mb, mh := median(slices.Clone(base)), median(slices.Clone(head))
	if mb <= 0 || mh <= 0 {
		return math.Inf(1)
	}
	scale := func(d float64) float64 { // head's factor for a slowdown d
		if better > 0 {
			return mb / mh / (1 + d)
		}
		return mb / mh * (1 + d)
	}
	flags := func(d float64) bool {
		shifted := make([]float64, len(head))
		for i, x := range head {
			shifted[i] = x * scale(d)
		}
		return significantWorse(base, shifted, better, level)
	}
	var cross []float64 // the shifts at which some head value meets some base value
	for _, b := range base {
		for _, h := range head {
			d := b / (h * mb / mh)
			if better > 0 {
				d = 1 / d
			}
			if d -= 1; d > 0 {
				cross = append(cross, d)
			}
		}
	}
	if len(cross) == 0 { // any slowdown puts every head value past every base value
		if tiny := 1e-9; flags(tiny) {
			return tiny
		}
		return math.Inf(1)
	}
	slices.Sort(cross)
	cross = slices.Compact(cross)
	// Just past crossing i; past the last every head value is worse than
	// every base value, where the smallest p is reached.
	at := func(i int) float64 {
		if i+1 < len(cross) {
			return (cross[i] + cross[i+1]) / 2
		}
		return cross[i] * (1 + 1e-9)
	}
	if !flags(at(len(cross) - 1)) {
		return math.Inf(1)
	}
	lo, hi := -1, len(cross)-1 // flags(at(hi)); not known below
	for hi-lo > 1 {
		mid := (lo + hi) / 2
		if flags(at(mid)) {
			hi = mid
		} else {
			lo = mid
		}
	}
	return at(hi)
}

// significantWorse reports whether head is worse than base in the unit's
// direction and the U test's p-value is at most level.
func significantWorse(base, head []float64, better int, level float64) bool {
	worse := 0
	for _, b := range base {
		for _, h := range head {
			switch {
			case h > b:
				worse++
			case h < b:
				worse--
			}
		}
	}
	if better > 0 {
		worse = -worse
	}
	if worse <= 0 {
		return false
	}
	th := &benchmath.Thresholds{CompareAlpha: level}
	s1 := benchmath.NewSample(slices.Clone(base), th)
	s2 := benchmath.NewSample(head, th)
	return uTestP(s1, s2) <= level
}
