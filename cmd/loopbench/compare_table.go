package main

import (
	"cmp"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/loopbench/loopbench/internal/verdict"
	"golang.org/x/perf/benchunit"
)

// sortPairs orders the pairs as compare and gate print them, whatever
// order the files hold them in (run and gate shuffle every round): by
// configuration group as the files first give them, then by unit as they
// first appear (sec/op before the metrics, as go test writes them), then
// by name in natural order (nameCompare).
func sortPairs(m *verdict.Matched) {
	var units []string
	for _, p := range m.Pairs {
		if !slices.Contains(units, p.Unit) {
			units = append(units, p.Unit)
		}
	}
	slices.SortStableFunc(m.Pairs, func(a, b verdict.Pair) int {
		return cmp.Or(
			cmp.Compare(slices.Index(m.Groups, a.Group), slices.Index(m.Groups, b.Group)),
			cmp.Compare(slices.Index(units, a.Unit), slices.Index(units, b.Unit)),
			nameCompare(a.Name, b.Name))
	})
	slices.SortStableFunc(m.BaseOnly, nameCompare)
	slices.SortStableFunc(m.HeadOnly, nameCompare)
}

// nameCompare orders benchmark names naturally: segment by segment (the
// name's "/" parts), and within a segment, such as "n=1000" or "batch=9",
// runs of digits by their value, so batch=9 comes before batch=10 and
// p=1000 before p=100000; other characters compare as bytes. A name that
// is a prefix of another, segment-wise, comes first.
func nameCompare(a, b string) int {
	as, bs := strings.Split(a, "/"), strings.Split(b, "/")
	for i := range min(len(as), len(bs)) {
		if c := naturalCompare(as[i], bs[i]); c != 0 {
			return c
		}
	}
	return cmp.Compare(len(as), len(bs))
}

// naturalCompare compares a and b with runs of digits read as numbers (a
// shorter run of equal value, "07" against "7", first).
func naturalCompare(a, b string) int {
	for a != "" && b != "" {
		da, db := digitRun(a), digitRun(b)
		if da > 0 && db > 0 {
			na, nb := strings.TrimLeft(a[:da], "0"), strings.TrimLeft(b[:db], "0")
			if c := cmp.Or(cmp.Compare(len(na), len(nb)), strings.Compare(na, nb), cmp.Compare(da, db)); c != 0 {
				return c
			}
			a, b = a[da:], b[db:]
			continue
		}
		if a[0] != b[0] {
			return cmp.Compare(a[0], b[0])
		}
		a, b = a[1:], b[1:]
	}
	return cmp.Compare(len(a), len(b))
}

// digitRun is the length of s's leading run of ASCII digits.
func digitRun(s string) int {
	n := 0
	for n < len(s) && s[n] >= '0' && s[n] <= '9' {
		n++
	}
	return n
}

// countUnit reports whether unit counts whole things: the amortised units
// and the exact ones (instructions), whose values never take a sub-unit
// prefix (90.67n allocs/op is no count).
func countUnit(c *verdict.Comparison) bool {
	return verdict.AmortisedUnit(c.Unit) || c.ExactUnit
}

// cellScale is the scale of a row's cells, benchunit's as benchstat's
// rows take it, from the row's centers; for a count, from its values of
// one or more only, so the scale is never below one.
func cellScale(unit string, count bool, centers ...float64) benchunit.Scaler {
	if count {
		centers = slices.DeleteFunc(slices.Clone(centers), func(v float64) bool { return math.Abs(v) < 1 })
	}
	return benchunit.CommonScale(centers, benchunit.ClassOf(unit))
}

// formatCell formats v at the scale; a count's 0 as 0, and its share below
// one per op (an allocation of setup amortised over b.N) with two
// significant digits, as 4.2e-06.
func formatCell(scale benchunit.Scaler, count bool, v float64) string {
	switch {
	case count && v == 0:
		return "0"
	case count && math.Abs(v) < 1:
		return strconv.FormatFloat(v, 'g', 2, 64)
	}
	return scale.Format(v)
}

// geomean is a unit table's summary row, as benchstat prints it: the
// geometric mean of each side's centers and of the head/base ratios (0/0
// counting as 1), over every comparison of the unit in the group, those
// left out as exactly equal too.
type geomean struct {
	base, head, ratio []float64
	count             bool
	shown             int
}

// add adds a comparison's centers.
func (g *geomean) add(c *verdict.Comparison, shown bool) {
	b, h := c.BaseSum.Center, c.HeadSum.Center
	g.base, g.head = append(g.base, b), append(g.head, h)
	r := math.NaN()
	switch {
	case b == h:
		r = 1
	case b != 0:
		r = h / b
	}
	g.ratio = append(g.ratio, r)
	g.count = g.count || countUnit(c)
	if shown {
		g.shown++
	}
}

// write prints the row when the unit has more than one comparison and
// some are shown; a mean that needs a value at or below zero is "?".
func (g *geomean) write(w io.Writer, unit string) {
	if len(g.base) < 2 || g.shown == 0 {
		return
	}
	mb, mh, mr := geoMean(g.base), geoMean(g.head), geoMean(g.ratio)
	scale := cellScale(unit, g.count, mb, mh)
	cell := func(v float64) string {
		if math.IsNaN(v) {
			return "?"
		}
		return formatCell(scale, g.count, v)
	}
	delta := "?"
	if !math.IsNaN(mr) {
		delta = formatDelta(mr - 1)
	}
	fmt.Fprintf(w, "geomean\t%s\t%s\t%s\t%s", unit, cell(mb), cell(mh), delta)
	if math.IsNaN(mb) || math.IsNaN(mh) || math.IsNaN(mr) {
		fmt.Fprint(w, "\t\t(a geomean needs values above 0)")
	}
	fmt.Fprintln(w)
}

// geoMean is the geometric mean of xs, NaN when one is not above zero.
func geoMean(xs []float64) float64 {
	sum := 0.0
	for _, x := range xs {
		if !(x > 0) {
			return math.NaN()
		}
		sum += math.Log(x)
	}
	return math.Exp(sum / float64(len(xs)))
}
