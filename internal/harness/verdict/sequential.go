package verdict

import "math"

// Looks returns the rounds at which a sequential gate decides: the first
// at minCount, then at each doubling, and the last at maxCount.
func Looks(minCount, maxCount int) []int {
	var out []int
	for n := minCount; n < maxCount; n *= 2 {
		out = append(out, n)
	}
	return append(out, maxCount)
}

// LookAlpha is the level of each of looks looks that holds the family-wise
// error over all of them, and over every benchmark, at alpha: alpha spent
// in equal shares (a Bonferroni split over the looks), each look then held
// at its share by Holm's procedure over the benchmarks. The union bound
// needs no assumption about how the looks' statistics depend on each
// other, which for a rank test on drifting wall time no boundary of
// Pocock's or O'Brien-Fleming's kind (built on normal statistics with
// known information fractions) could supply; doubling looks keep their
// number, and so the cost of the split, logarithmic in the rounds.
func LookAlpha(alpha float64, looks int) float64 { return alpha / float64(max(looks, 1)) }

// Decided reports whether a comparison needs no more samples: judged
// without a test and not undecided, significant, or with both sides'
// intervals so narrow that the change lies within the minimum effect.
func (c *Comparison) Decided() bool {
	if c.Rule != RuleUTest {
		return c.Status != Undecided
	}
	return c.Significant || c.slack() > 0
}

// slack is how far the change plus both intervals' relative half-widths
// stay under the minimum effect (negative: the samples cannot tell yet).
func (c *Comparison) slack() float64 {
	if math.IsNaN(c.Delta) || math.IsInf(c.Delta, 0) {
		return math.Inf(-1)
	}
	return c.MinEffect - math.Abs(c.Delta) - halfWidth(c.BaseSum.Lo, c.BaseSum.Center, c.BaseSum.Hi) - halfWidth(c.HeadSum.Lo, c.HeadSum.Center, c.HeadSum.Hi)
}

func halfWidth(lo, center, hi float64) float64 {
	if center == 0 || math.IsInf(lo, 0) || math.IsInf(hi, 0) {
		return math.Inf(1)
	}
	return max(hi-center, center-lo) / math.Abs(center)
}

// Undecided returns the comparisons not Decided.
func (v *Verdict) Undecided() []*Comparison {
	var out []*Comparison
	for i := range v.Comparisons {
		if !v.Comparisons[i].Decided() {
			out = append(out, &v.Comparisons[i])
		}
	}
	return out
}

// RoundsToDecide estimates the samples per side that would decide every
// undecided comparison of v, from its rounds so far (see
// Comparison.roundsToDecide). 0 when nothing is undecided; MaxSamples
// when some comparison would need more.
func (v *Verdict) RoundsToDecide(level float64) int {
	need := 0
	for _, c := range v.Undecided() {
		need = max(need, c.roundsToDecide(level))
	}
	return need
}

// roundsToDecide estimates the samples per side that would decide c:
// intervals narrow as one over the square root of the samples, so a
// change within the minimum effect is decided once both intervals fit
// beside it; a change past it once its test can reach the level (its
// ties counted). At most MaxSamples.
func (c *Comparison) roundsToDecide(level float64) int {
	n := len(c.Base)
	room := c.MinEffect - math.Abs(c.Delta)
	width := halfWidth(c.BaseSum.Lo, c.BaseSum.Center, c.BaseSum.Hi) + halfWidth(c.HeadSum.Lo, c.HeadSum.Center, c.HeadSum.Hi)
	need := 0
	switch {
	case room > 0 && !math.IsInf(width, 0):
		need = int(math.Ceil(float64(n) * math.Pow(width/room, 2)))
	case room > 0:
		need = 2 * n
	default:
		k := SamplesForTies(c.Base, c.Head, level)
		if k == 0 {
			k = MaxSamples
		}
		need = max(k, 2*n)
	}
	return min(need, MaxSamples)
}
