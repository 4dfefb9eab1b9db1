package history

import (
	"math"
	"slices"

	"github.com/loopbench/loopbench/internal/harness/verdict"
	"github.com/montanaflynn/stats"
)

// Options are the detector's parameters.
type Options struct {
	// MinEffect is the smallest change of a level that counts, 0.005 for
	// 0.5 %; est-cycles/op takes twice it (verdict.UnitMinEffect).
	MinEffect float64
	// MinSegment is the fewest commits a level must hold (1: a change at
	// the newest commit is named as soon as it is saved).
	MinSegment int
}

// DefaultMinEffect is the default minimum effect: the gate's, above the
// A/A spread of instructions/op (−0.28 to +0.31 %), and doubled for
// est-cycles/op (up to +0.58 %).
const DefaultMinEffect = 0.005

// Level is one segment of a series: the commits from From to To (indices
// into History.Commits, To included), the median of their medians and
// the range of every value in them.
type Level struct {
	From, To int
	Commits  int // the commits of the segment that hold the benchmark
	Median   float64
	Lo, Hi   float64
}

// Change is a change point: the first commit of a new level.
type Change struct {
	Name, Unit    string
	At            int     // the commit (index into History.Commits)
	Delta         float64 // After.Median / Before.Median − 1; ±Inf from 0
	Before, After Level
}

// Detect returns the change points of every series of h, by series and
// then commit. A series splits by circular binary segmentation on the
// commits' medians (see split): of the runs of commits whose level
// differs from the rest of their segment by more than the minimum
// effect, with every value of the run beyond every value of the rest
// (the step is larger than the spread within either side), and each
// piece at least MinSegment commits long, the one that leaves the least
// squared deviation is cut out, and each piece is split again until
// none passes. Noise whose counts stay within the minimum effect of
// each other cannot pass: no A/A series is split.
func Detect(h *History, o Options) []Change {
	o.MinSegment = max(o.MinSegment, 1)
	var out []Change
	for _, s := range h.Series {
		out = append(out, detectSeries(s, o)...)
	}
	return out
}

// detectSeries finds the change points of one series.
func detectSeries(s *Series, o Options) []Change {
	p := newPoints(s)
	effect := verdict.UnitMinEffect(s.Unit, o.MinEffect)
	cuts := p.split(0, len(p.mids), effect, o.MinSegment)
	slices.Sort(cuts)
	bounds := append(append([]int{0}, cuts...), len(p.mids))
	var out []Change
	for i := 1; i+1 < len(bounds); i++ {
		before := level(s, p.mids, bounds[i-1], bounds[i])
		after := level(s, p.mids, bounds[i], bounds[i+1])
		out = append(out, Change{Name: s.Name, Unit: s.Unit, At: s.At[bounds[i]], Delta: relDelta(before.Median, after.Median), Before: before, After: after})
	}
	return out
}

// points are a series' commits as the detector reads them: each one's
// median and the range of its values.
type points struct {
	unit         string
	mids, lo, hi []float64
}

func newPoints(s *Series) *points {
	p := &points{unit: s.Unit}
	for _, v := range s.Values {
		p.mids = append(p.mids, median(v))
		p.lo = append(p.lo, slices.Min(v))
		p.hi = append(p.hi, slices.Max(v))
	}
	return p
}

// split returns the cuts of points [a, b): the indices where a new level
// starts. As circular binary segmentation, it tries every run [i, j) of
// the segment against the rest of it (a step is a run that reaches an
// end; a spike, a level that moves and comes back, one that does not),
// keeps the accepted one whose two levels leave the least squared
// deviation of the medians, and splits each piece again. The ranges and
// sums of the rest come from prefix and suffix arrays, and a run whose
// values overlap the rest's is rejected before any median is taken.
func (p *points) split(a, b int, effect float64, minSeg int) []int {
	pre, suf := p.spans(a, b)
	bi, bj, bestCost := -1, -1, math.Inf(1)
	for i := a; i < b; i++ {
		run := span{lo: math.Inf(1), hi: math.Inf(-1)}
		for j := i + 1; j <= b; j++ {
			run = run.add(p.lo[j-1], p.hi[j-1], p.mids[j-1])
			if i == a && j == b || j-i < minSeg || i > a && i-a < minSeg || j < b && b-j < minSeg {
				continue
			}
			rest := pre[i-a].join(suf[j-a])
			if run.lo <= rest.hi && run.hi >= rest.lo {
				continue // the values overlap: no step beyond the spread
			}
			cost := run.sse() + rest.sse()
			if cost >= bestCost || !accept(p.unit, median(p.rest(a, i, j, b)), rest.lo, rest.hi, median(p.mids[i:j]), run.lo, run.hi, effect) {
				continue
			}
			bi, bj, bestCost = i, j, cost
		}
	}
	if bi < 0 {
		return nil
	}
	var cuts []int
	for _, piece := range [][2]int{{a, bi}, {bi, bj}, {bj, b}} {
		if piece[0] < piece[1] {
			if piece[0] > a {
				cuts = append(cuts, piece[0])
			}
			cuts = append(cuts, p.split(piece[0], piece[1], effect, minSeg)...)
		}
	}
	return cuts
}

// span is the range and the sums of some points' values and medians.
type span struct {
	lo, hi    float64
	n, s1, s2 float64 // count, sum and sum of squares of the medians
}

func (s span) add(lo, hi, mid float64) span {
	return span{min(s.lo, lo), max(s.hi, hi), s.n + 1, s.s1 + mid, s.s2 + mid*mid}
}

func (s span) join(t span) span {
	return span{min(s.lo, t.lo), max(s.hi, t.hi), s.n + t.n, s.s1 + t.s1, s.s2 + t.s2}
}

// sse is the squared deviation of the medians from their mean.
func (s span) sse() float64 {
	if s.n == 0 {
		return 0
	}
	return s.s2 - s.s1*s.s1/s.n
}

// spans returns, for t from 0 to b−a, the span of points [a, a+t) and
// that of [a+t, b).
func (p *points) spans(a, b int) (pre, suf []span) {
	empty := span{lo: math.Inf(1), hi: math.Inf(-1)}
	pre, suf = make([]span, b-a+1), make([]span, b-a+1)
	pre[0], suf[b-a] = empty, empty
	for k := a; k < b; k++ {
		pre[k-a+1] = pre[k-a].add(p.lo[k], p.hi[k], p.mids[k])
	}
	for k := b - 1; k >= a; k-- {
		suf[k-a] = suf[k-a+1].add(p.lo[k], p.hi[k], p.mids[k])
	}
	return pre, suf
}

// rest is the medians of points [a, i) and [j, b).
func (p *points) rest(a, i, j, b int) []float64 {
	return append(slices.Clone(p.mids[a:i]), p.mids[j:b]...)
}

// accept says two adjacent levels differ: their medians (ml, mr) by more
// than effect, every value of one (from lo to hi) beyond every value of
// the other, and, for the units that count whole things, by the
// verdict's smallest step (syscalls/op by more than the A/A spread,
// verdict.SyscallNoise).
func accept(unit string, ml, llo, lhi, mr, rlo, rhi, effect float64) bool {
	if math.Abs(relDelta(ml, mr)) <= effect {
		return false
	}
	gap := rlo - lhi
	if mr < ml {
		gap = llo - rhi
	}
	switch {
	case gap <= 0:
		return false
	case unit == verdict.SyscallsUnit:
		return gap > verdict.SyscallNoise
	case verdict.AmortisedUnit(unit):
		return gap >= verdict.MinAmortisedStep(unit)
	}
	return true
}

// level summarizes series points [a, b).
func level(s *Series, mids []float64, a, b int) Level {
	l := Level{From: s.At[a], To: s.At[b-1], Commits: b - a, Median: median(mids[a:b]), Lo: math.Inf(1), Hi: math.Inf(-1)}
	for _, v := range s.Values[a:b] {
		l.Lo, l.Hi = min(l.Lo, slices.Min(v)), max(l.Hi, slices.Max(v))
	}
	return l
}

// median is the median of xs (the mean of the middle pair for an even
// count) by montanaflynn/stats, as every other median of small samples.
func median(xs []float64) float64 {
	m, _ := stats.Median(xs)
	return m
}

// relDelta is b/a − 1, ±Inf when a is 0 and b is not.
func relDelta(a, b float64) float64 {
	switch {
	case a == b:
		return 0
	case a == 0:
		return math.Copysign(math.Inf(1), b)
	}
	return b/a - 1
}
