package verdict

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/perf/benchmath"
	"golang.org/x/perf/benchunit"
)

// countUnit reports whether unit counts whole things: the amortised units
// and the exact ones (instructions), whose values never take a sub-unit
// prefix (90.67n allocs/op is no count).
func countUnit(c *Comparison) bool {
	return AmortisedUnit(c.Unit) || c.ExactUnit
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

// formatSum is a summary at the scale (formatCell): for the U test its
// center and interval; without a test its median, and its range when the
// values differ.
func formatSum(scale benchunit.Scaler, count bool, s benchmath.Summary, rule Rule) string {
	f := func(v float64) string { return formatCell(scale, count, v) }
	switch {
	case rule == RuleUTest:
		return fmt.Sprintf("%s ± %s", f(s.Center), s.PctRangeString())
	case s.Lo == s.Hi:
		return f(s.Center)
	}
	return fmt.Sprintf("%s [%s, %s]", f(s.Center), f(s.Lo), f(s.Hi))
}

// FormatDelta is a relative change as a signed percentage.
func FormatDelta(d float64) string {
	switch {
	case math.IsInf(d, 1):
		return "+inf"
	case math.IsInf(d, -1):
		return "-inf"
	case d == 0:
		return "0%"
	}
	return fmt.Sprintf("%+.2f%%", 100*d)
}

// PctString is a fraction as a percentage without trailing zeros.
func PctString(f float64) string {
	return strings.TrimSuffix(strings.TrimRight(fmt.Sprintf("%.2f", 100*f), "0"), ".") + "%"
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
func (g *geomean) add(c *Comparison, shown bool) {
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
		delta = FormatDelta(mr - 1)
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
