package verdict

import (
	"fmt"
	"io"
	"math"
	"slices"
	"text/tabwriter"
)

// WriteText prints one row per comparison (exactly equal ones only
// counted), as benchstat's tables, the benchmarks found on one side only,
// and every regression on its own line at the end.
func (j *Judgment) WriteText(w io.Writer) {
	WriteTables(w, j.Verdict, j.Options, j.Matched.Groups)
	printOneSide(w, "base", j.Matched.BaseOnly)
	printOneSide(w, "head", j.Matched.HeadOnly)
	printRegressions(w, j.Verdict)
}

// WriteTables prints v's comparisons of each group in groups, in that
// order, a table per unit as benchstat's, and the totals: how the
// comparisons were made under o and what they found.
func WriteTables(w io.Writer, v *Verdict, o Options, groups []string) {
	exactSame := 0
	for _, g := range groups {
		exactSame += printGroup(w, g, v)
	}
	printTotals(w, v, o, exactSame)
}

// exactlyEqual reports whether c is left out of the table: constant and
// equal samples.
func exactlyEqual(c *Comparison) bool {
	return c.Exact && c.Status == Same && c.Delta == 0 && c.Equal
}

// printGroup prints group g's comparisons, under the group's name unless
// it is "": a table per unit, as benchstat's, its rows in the order
// SortPairs gave them and a geomean row at the end; it returns how many
// rows it left out as exactly equal.
func printGroup(w io.Writer, g string, v *Verdict) (exactSame int) {
	if g != "" {
		fmt.Fprintf(w, "\n%s\n", g)
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	unit, gm, tables := "", &geomean{}, 0
	for i := range v.Comparisons {
		c := &v.Comparisons[i]
		if c.Group != g {
			continue
		}
		if c.Unit != unit {
			gm.write(tw, unit)
			unit, gm = c.Unit, &geomean{}
		}
		shown := !exactlyEqual(c)
		gm.add(c, shown)
		if !shown {
			exactSame++
			continue
		}
		if gm.shown == 1 { // the unit's first row: its table's header
			if tables++; tables > 1 {
				fmt.Fprintln(tw)
			}
			fmt.Fprintln(tw, "benchmark\tunit\tbase\thead\tdelta\tp (Holm level)\tverdict")
		}
		printRow(tw, v, c)
	}
	gm.write(tw, unit)
	tw.Flush()
	return exactSame
}

// printRow prints one comparison's row.
func printRow(tw io.Writer, v *Verdict, c *Comparison) {
	count := countUnit(c)
	scale := cellScale(c.Unit, count, c.BaseSum.Center, c.HeadSum.Center)
	test := c.Rule.String()
	switch {
	case c.Rule == RuleUTest:
		test = fmt.Sprintf("p=%.3g (%.2g) n=%d+%d", c.P, c.Threshold, len(c.Base), len(c.Head))
	case c.Rule != RuleExact:
		test += fmt.Sprintf(" n=%d+%d", len(c.Base), len(c.Head))
	}
	status := c.Status.String()
	if note := rowNote(v, c); note != "" {
		status += " (" + note + ")"
	}
	fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", c.Name, c.Unit, formatSum(scale, count, c.BaseSum, c.Rule), formatSum(scale, count, c.HeadSum, c.Rule), FormatDelta(c.Delta), test, status)
}

// rowNote is a row's reason; a test that found no significant change
// past the minimum effect says what slowdown it could have flagged.
func rowNote(v *Verdict, c *Comparison) string {
	note := c.Note
	if c.Rule == RuleUTest && c.Status == Same && !c.Significant && c.Note != "" {
		note += "; " + detectableString(v, c)
	}
	return note
}

// detectableString says what slowdown c's test could have flagged.
func detectableString(v *Verdict, c *Comparison) string {
	d := v.Detectable(c)
	if math.IsInf(d, 1) {
		return fmt.Sprintf("n=%d+%d flags no slowdown at p<%.2g", len(c.Base), len(c.Head), v.Level())
	}
	return "flags ≥" + PctString(max(d, c.MinEffect))
}

// printTotals prints how the comparisons were made and what they found.
func printTotals(w io.Writer, v *Verdict, o Options, exactSame int) {
	fmt.Fprintf(w, "\n%s: %d by U test at family-wise alpha %g (Holm), %d without a test (exact, range or amortised rule)", plural(len(v.Comparisons), "comparison"), v.Tests, v.Alpha, len(v.Comparisons)-v.Tests)
	if exactSame > 0 {
		fmt.Fprintf(w, " (%d exactly equal, not shown)", exactSame)
	}
	fmt.Fprintf(w, "; minimum effect %s", PctString(o.MinEffect))
	if slices.ContainsFunc(v.Comparisons, func(c Comparison) bool { return c.Unit == EstCyclesUnit }) {
		fmt.Fprintf(w, " (%s %s)", EstCyclesUnit, PctString(UnitMinEffect(EstCyclesUnit, o.MinEffect)))
	}
	if len(o.Floors) > 0 {
		fmt.Fprintf(w, ", or the benchmark's noise floor")
	}
	fmt.Fprintf(w, ".\n%d improved, %d regressed, %d undecided.\n", v.Count(Improved), v.Count(Regressed), v.Count(Undecided))
	if s := sensitivityString(v); s != "" {
		fmt.Fprintln(w, s)
	}
}

// sensitivityString says the smallest slowdown the run's tests could have
// flagged on every tested benchmark that did not regress: what a pass
// claims.
func sensitivityString(v *Verdict) string {
	d, c := v.Sensitivity()
	if c == nil {
		return ""
	}
	name := c.Name + " " + c.Unit
	if c.Group != "" {
		name = c.Group + " " + name
	}
	if math.IsInf(d, 1) {
		s := fmt.Sprintf("The tests could not flag every slowdown: %s at n=%d+%d cannot reach p<%.2g", name, len(c.Base), len(c.Head), v.Level())
		if n := samplesToReach(v.Level()); n > 0 {
			s += fmt.Sprintf("; %d+%d samples without ties could", n, n)
		}
		return s + "."
	}
	return fmt.Sprintf("The tests could flag a slowdown of %s or more on every tested benchmark (least sensitive: %s).", PctString(d), name)
}

// samplesToReach is the fewest samples a side with which a U test can
// reach level, or 0 past 1000.
func samplesToReach(level float64) int {
	for n := 1; n <= 1000; n++ {
		if Reachable(n, n, level) {
			return n
		}
	}
	return 0
}

// printOneSide lists the benchmarks found only on one side, if any.
func printOneSide(w io.Writer, side string, names []string) {
	if len(names) == 0 {
		return
	}
	fmt.Fprintf(w, "only in %s (%d, not compared):\n", side, len(names))
	for _, n := range names {
		fmt.Fprintf(w, "  %s\n", n)
	}
}

// printRegressions prints each regression on a line of its own, if any.
func printRegressions(w io.Writer, v *Verdict) {
	rs := v.Regressions()
	if len(rs) == 0 {
		return
	}
	fmt.Fprintf(w, "regressions (%d):\n", len(rs))
	for _, c := range rs {
		name := c.Name
		if c.Group != "" {
			name = c.Group + " " + name
		}
		p := c.Rule.String()
		if c.Rule == RuleUTest {
			p = fmt.Sprintf("p=%.3g", c.P)
		}
		fmt.Fprintf(w, "  REGRESSION %s %s %s (%s)\n", name, c.Unit, FormatDelta(c.Delta), p)
	}
}
