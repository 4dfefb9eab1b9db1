package main

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/loopbench/loopbench/internal/benchdata"
	"github.com/loopbench/loopbench/internal/verdict"
	"golang.org/x/perf/benchmath"
	"golang.org/x/perf/benchproc"
	"golang.org/x/perf/benchunit"
)

// verdictFlags are the flags compare and gate share.
type verdictFlags struct {
	alpha              float64
	minEffect          string
	floor              string
	force              bool
	filter             string
	requireEquivalence bool
	format             string
}

// register defines the flags on fs.
func (f *verdictFlags) register(fs interface {
	Float64Var(*float64, string, float64, string)
	StringVar(*string, string, string, string)
	BoolVar(*bool, string, bool, string)
}) {
	fs.Float64Var(&f.alpha, "alpha", 0.05, "family-wise significance level over all the run's comparisons (Holm)")
	fs.StringVar(&f.minEffect, "min-effect", "5%", "smallest change that counts as a regression, a percentage with its % sign (a bare number is refused)")
	fs.StringVar(&f.floor, "floor", "", "noise floors file (from gate -aa -write-floor): a benchmark's minimum effect is the larger of -min-effect and its floor")
	fs.BoolVar(&f.force, "force", false, "compare results from different setups (cpu, goos, goarch, go, kernel, gomaxprocs)")
	fs.StringVar(&f.filter, "filter", "", "use only the results this benchstat filter matches, e.g. '.name:CallSoon' or 'commit:abc123'")
	fs.BoolVar(&f.requireEquivalence, "require-equivalence", false, "exit 3 unless every timed comparison is significant or placed within the minimum effect by its intervals (default: pass what is not a significant regression, printing the smallest slowdown the run could have flagged)")
	fs.StringVar(&f.format, "format", "text", "output: text (a table) or json (one object: each comparison, the exit code, the undecided and set-aside lists)")
}

// options checks the flags and returns the verdict options and the filter.
func (f *verdictFlags) options() (verdict.Options, *benchproc.Filter, error) {
	effect, err := parseEffect(f.minEffect)
	if err != nil {
		return verdict.Options{}, nil, usageError{err.Error()}
	}
	if f.alpha <= 0 || f.alpha >= 1 {
		return verdict.Options{}, nil, usageError{fmt.Sprintf("-alpha %g: want a level between 0 and 1", f.alpha)}
	}
	if f.format != "text" && f.format != "json" {
		return verdict.Options{}, nil, usageError{fmt.Sprintf("-format %q: want text or json", f.format)}
	}
	o := verdict.Options{Alpha: f.alpha, MinEffect: effect, RequireEquivalence: f.requireEquivalence}
	if f.floor != "" {
		if o.Floors, err = verdict.ReadFloors(f.floor); err != nil {
			return o, nil, usageError{fmt.Sprintf("-floor: %v", err)}
		}
	}
	var filter *benchproc.Filter
	if f.filter != "" {
		if filter, err = benchproc.NewFilter(f.filter); err != nil {
			msg, _, _ := strings.Cut(err.Error(), "\n") // benchproc points at the column on more lines
			return o, nil, usageError{fmt.Sprintf("-filter %q: %s", f.filter, msg)}
		}
	}
	return o, filter, nil
}

// judgment is the verdict on two files, as compare and gate print it.
type judgment struct {
	m         *verdict.Matched
	v         *verdict.Verdict
	o         verdict.Options
	malformed []string // a summary per file with malformed lines
}

// judge reads base and head, matches them and decides. Its error (exit 2)
// means the files cannot be compared.
func judge(basePath, headPath string, o verdict.Options, filter *benchproc.Filter, force bool) (*judgment, error) {
	sets, m, err := matchFiles(basePath, headPath, filter, force)
	if err != nil {
		return nil, err
	}
	sortPairs(m)
	j := &judgment{m: m, v: verdict.Decide(m.Pairs, o), o: o}
	for _, s := range sets {
		if len(s.Malformed) > 0 {
			j.malformed = append(j.malformed, malformedSummary(s))
		}
	}
	return j, nil
}

// exit returns the error whose exit code is the verdict's: nil (0), 1 for
// a regression, 2 when a file has malformed lines, 3 when some comparison
// is undecided.
func (j *judgment) exit() error {
	v := j.v
	also := ""
	if j.malformed != nil {
		also = "; also " + strings.Join(j.malformed, "; ") + " (the table covers the lines that could be read)"
	}
	switch {
	case v.Exit() == verdict.ExitRegression:
		return exitError{1, fmt.Errorf("%s beyond the minimum effect, listed at the end of the table%s", plural(v.Count(verdict.Regressed), "regression"), also)}
	case j.malformed != nil:
		return exitError{2, fmt.Errorf("%s (the table covers the lines that could be read)", strings.Join(j.malformed, "; "))}
	case v.Exit() == verdict.ExitUndecided:
		return exitError{3, fmt.Errorf("%s undecided: %s", plural(v.Count(verdict.Undecided), "comparison"), needMessage(v))}
	}
	return nil
}

// matchFiles reads base and head and matches them; its error's exit code
// is 2.
func matchFiles(basePath, headPath string, filter *benchproc.Filter, force bool) ([2]*benchdata.Set, *verdict.Matched, error) {
	var sets [2]*benchdata.Set
	for i, path := range []string{basePath, headPath} {
		s, err := benchdata.ReadFile(path, filter)
		if err != nil {
			if s != nil && len(s.Malformed) > 0 {
				err = fmt.Errorf("%w; %s", err, malformedSummary(s))
			}
			return sets, nil, exitError{2, err}
		}
		sets[i] = s
	}
	m, err := verdict.Match(sets[0], sets[1], force)
	if err != nil {
		return sets, nil, exitError{2, err}
	}
	return sets, m, nil
}

// needMessage says why comparisons are undecided: exact units whose
// repeats disagree, and tests that need more samples (how many a side
// would do, ties counted).
func needMessage(v *verdict.Verdict) string {
	ranges, tests := 0, 0
	for _, c := range v.Comparisons {
		switch {
		case c.Status != verdict.Undecided:
		case c.Rule == verdict.RuleRange:
			ranges++
		default:
			tests++
		}
	}
	var parts []string
	if ranges > 0 {
		parts = append(parts, fmt.Sprintf("%d of exact units whose repeats disagree across the minimum effect", ranges))
	}
	if tests > 0 {
		msg := fmt.Sprintf("too few samples for alpha %g over %s", v.Alpha, plural(v.Tests, "test"))
		if v.Need > 0 {
			msg += fmt.Sprintf("; %d per side would do", v.Need)
		}
		if v.Unreachable > 0 {
			msg += fmt.Sprintf("; %s too tied for any count up to %d to decide", plural(v.Unreachable, "test"), verdict.MaxSamples)
		}
		parts = append(parts, msg)
	}
	return strings.Join(parts, "; ")
}

// malformedSummary names a file's first malformed line and counts the
// others.
func malformedSummary(s *benchdata.Set) string {
	msg := fmt.Sprintf("malformed results: %s", s.Malformed[0])
	if n := len(s.Malformed); n > 1 {
		msg += fmt.Sprintf(" (and %s more)", plural(n-1, "line"))
	}
	return msg
}

// text prints one row per comparison (exactly equal ones only counted),
// the benchmarks found on one side only, and every regression on its own
// line at the end.
func (j *judgment) text(w io.Writer) {
	exactSame := 0
	for _, g := range j.m.Groups {
		exactSame += printGroup(w, g, j.v)
	}
	printTotals(w, j.v, j.o, exactSame)
	printOneSide(w, "base", j.m.BaseOnly)
	printOneSide(w, "head", j.m.HeadOnly)
	printRegressions(w, j.v)
}

// exactlyEqual reports whether c is left out of the table: constant and
// equal samples.
func exactlyEqual(c *verdict.Comparison) bool {
	return c.Exact && c.Status == verdict.Same && c.Delta == 0 && c.Note == "exact"
}

// printGroup prints group g's comparisons, under the group's name unless
// it is "": a table per unit, as benchstat's, its rows in the order
// sortPairs gave them and a geomean row at the end; it returns how many
// rows it left out as exactly equal.
func printGroup(w io.Writer, g string, v *verdict.Verdict) (exactSame int) {
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
func printRow(tw io.Writer, v *verdict.Verdict, c *verdict.Comparison) {
	count := countUnit(c)
	scale := cellScale(c.Unit, count, c.BaseSum.Center, c.HeadSum.Center)
	test := c.Rule.String()
	switch {
	case c.Rule == verdict.RuleUTest:
		test = fmt.Sprintf("p=%.3g (%.2g) n=%d+%d", c.P, c.Threshold, len(c.Base), len(c.Head))
	case c.Rule != verdict.RuleExact:
		test += fmt.Sprintf(" n=%d+%d", len(c.Base), len(c.Head))
	}
	status := c.Status.String()
	if note := rowNote(v, c); note != "" {
		status += " (" + note + ")"
	}
	fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", c.Name, c.Unit, formatSum(scale, count, c.BaseSum, c.Rule), formatSum(scale, count, c.HeadSum, c.Rule), formatDelta(c.Delta), test, status)
}

// rowNote is a row's reason; a test that found no significant change
// past the minimum effect says what slowdown it could have flagged.
func rowNote(v *verdict.Verdict, c *verdict.Comparison) string {
	note := c.Note
	if note == "exact" {
		note = ""
	}
	if c.Rule == verdict.RuleUTest && c.Status == verdict.Same && !c.Significant && c.Note != "" {
		note += "; " + detectableString(v, c)
	}
	return note
}

// detectableString says what slowdown c's test could have flagged.
func detectableString(v *verdict.Verdict, c *verdict.Comparison) string {
	d := v.Detectable(c)
	if math.IsInf(d, 1) {
		return fmt.Sprintf("n=%d+%d flags no slowdown at p<%.2g", len(c.Base), len(c.Head), v.Level())
	}
	return "flags ≥" + pctString(max(d, c.MinEffect))
}

// printTotals prints how the comparisons were made and what they found.
func printTotals(w io.Writer, v *verdict.Verdict, o verdict.Options, exactSame int) {
	fmt.Fprintf(w, "\n%s: %d by U test at family-wise alpha %g (Holm), %d without a test (exact, range or amortised rule)", plural(len(v.Comparisons), "comparison"), v.Tests, v.Alpha, len(v.Comparisons)-v.Tests)
	if exactSame > 0 {
		fmt.Fprintf(w, " (%d exactly equal, not shown)", exactSame)
	}
	fmt.Fprintf(w, "; minimum effect %s", pctString(o.MinEffect))
	if slices.ContainsFunc(v.Comparisons, func(c verdict.Comparison) bool { return c.Unit == verdict.EstCyclesUnit }) {
		fmt.Fprintf(w, " (%s %s)", verdict.EstCyclesUnit, pctString(verdict.UnitMinEffect(verdict.EstCyclesUnit, o.MinEffect)))
	}
	if len(o.Floors) > 0 {
		fmt.Fprintf(w, ", or the benchmark's noise floor")
	}
	fmt.Fprintf(w, ".\n%d improved, %d regressed, %d undecided.\n", v.Count(verdict.Improved), v.Count(verdict.Regressed), v.Count(verdict.Undecided))
	if s := sensitivityString(v); s != "" {
		fmt.Fprintln(w, s)
	}
}

// sensitivityString says the smallest slowdown the run's tests could have
// flagged on every tested benchmark that did not regress: what a pass
// claims.
func sensitivityString(v *verdict.Verdict) string {
	d, c := v.Sensitivity()
	if c == nil {
		return ""
	}
	name := c.Name + " " + c.Unit
	if c.Group != "" {
		name = c.Group + " " + name
	}
	if math.IsInf(d, 1) {
		return fmt.Sprintf("The tests could not flag every slowdown: %s at n=%d+%d cannot reach p<%.2g.", name, len(c.Base), len(c.Head), v.Level())
	}
	return fmt.Sprintf("The tests could flag a slowdown of %s or more on every tested benchmark (least sensitive: %s).", pctString(d), name)
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
func printRegressions(w io.Writer, v *verdict.Verdict) {
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
		if c.Rule == verdict.RuleUTest {
			p = fmt.Sprintf("p=%.3g", c.P)
		}
		fmt.Fprintf(w, "  REGRESSION %s %s %s (%s)\n", name, c.Unit, formatDelta(c.Delta), p)
	}
}

// formatSum is a summary at the scale (formatCell): for the U test its
// center and interval; without a test its median, and its range when the
// values differ.
func formatSum(scale benchunit.Scaler, count bool, s benchmath.Summary, rule verdict.Rule) string {
	f := func(v float64) string { return formatCell(scale, count, v) }
	switch {
	case rule == verdict.RuleUTest:
		return fmt.Sprintf("%s ± %s", f(s.Center), s.PctRangeString())
	case s.Lo == s.Hi:
		return f(s.Center)
	}
	return fmt.Sprintf("%s [%s, %s]", f(s.Center), f(s.Lo), f(s.Hi))
}

// formatDelta is a relative change as a signed percentage.
func formatDelta(d float64) string {
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

// pctString is a fraction as a percentage without trailing zeros.
func pctString(f float64) string {
	return strings.TrimSuffix(strings.TrimRight(fmt.Sprintf("%.2f", 100*f), "0"), ".") + "%"
}
