package main

import (
	"fmt"
	"io"
	"path/filepath"
	"slices"

	"github.com/loopbench/loopbench/internal/gate"
	"github.com/loopbench/loopbench/internal/verdict"
	"golang.org/x/perf/benchproc"
)

// sequential is a wall-time gate that looks at its rounds as they come:
// first after -min-count, then at each doubling up to -count, each look
// held at alpha over the number of looks (verdict.LookAlpha), and stops
// once every benchmark is decided.
type sequential struct {
	looks []int
	level float64
}

func newSequential(minCount, count int, alpha float64) *sequential {
	looks := verdict.Looks(minCount, count)
	return &sequential{looks, verdict.LookAlpha(alpha, len(looks))}
}

// stop is the gate's Stop: at a look, whether the files decide every
// benchmark at the look's level.
func (s *sequential) stop(out string, o verdict.Options, filter *benchproc.Filter, log io.Writer) func(int) bool {
	o.Alpha = s.level
	return func(rounds int) bool {
		if !slices.Contains(s.looks, rounds) {
			return false
		}
		_, m, err := matchFiles(filepath.Join(out, "base.txt"), filepath.Join(out, "head.txt"), filter, false)
		if err != nil {
			return false
		}
		v := verdict.Decide(m.Pairs, o)
		left := len(v.Undecided())
		fmt.Fprintf(log, "look after %s: %d of %s undecided\n", plural(rounds, "round"), left, plural(len(v.Comparisons), "comparison"))
		return left == 0
	}
}

// finish prints how the sequential gate ran, and, for the comparisons
// its last look left neither significant nor within the minimum effect,
// how they were passed and the rounds that would likely decide them.
// (With -require-equivalence the verdict counts them undecided: exit 3.)
func (s *sequential) finish(w io.Writer, v *verdict.Verdict, res *gate.Result) {
	fmt.Fprintf(w, "sequential: %s of at most %d, looks at %v each held at alpha %.3g (alpha over %s, Holm within each)\n",
		plural(res.Rounds, "round"), s.looks[len(s.looks)-1], s.looks, s.level, plural(len(s.looks), "look"))
	left := v.Undecided()
	if len(left) == 0 || v.Count(verdict.Undecided) > 0 {
		return
	}
	fmt.Fprintf(w, "%s neither significant nor within the minimum effect after %s: passed, as no significant regression (-require-equivalence would exit 3); about %s would likely decide them\n",
		plural(len(left), "comparison"), plural(res.Rounds, "round"), plural(v.RoundsToDecide(s.level), "round"))
}
