package main

import (
	"fmt"
	"io"
	"math"
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
	alpha     float64
	minEffect string
	floor     string
	force     bool
	filter    string
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
	o := verdict.Options{Alpha: f.alpha, MinEffect: effect}
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

// judge reads base and head, matches them, decides, prints the table to w
// and returns the error whose exit code is the verdict's: nil (0), 1 for
// a regression, 2 when the files cannot be compared or are malformed, 3
// when the samples are too few to decide.
func judge(w io.Writer, basePath, headPath string, o verdict.Options, filter *benchproc.Filter, force bool) (*verdict.Verdict, error) {
	sets, m, err := matchFiles(basePath, headPath, filter, force)
	if err != nil {
		return nil, err
	}
	v := verdict.Decide(m.Pairs, o)
	printVerdict(w, m, v, o)
	var malformed []string
	for _, s := range sets {
		if len(s.Malformed) > 0 {
			malformed = append(malformed, malformedSummary(s))
		}
	}
	also := ""
	if malformed != nil {
		also = "; also " + strings.Join(malformed, "; ") + " (the table covers the lines that could be read)"
	}
	switch {
	case v.Exit() == verdict.ExitRegression:
		return v, exitError{1, fmt.Errorf("%d regressions beyond the minimum effect, listed at the end of the table%s", v.Count(verdict.Regressed), also)}
	case malformed != nil:
		return v, exitError{2, fmt.Errorf("%s (the table covers the lines that could be read)", strings.Join(malformed, "; "))}
	case v.Exit() == verdict.ExitUndecided:
		return v, exitError{3, fmt.Errorf("%d comparisons undecided: %s", v.Count(verdict.Undecided), needMessage(v))}
	}
	return v, nil
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

// needMessage says how many samples a side would decide the undecided
// comparisons, ties counted.
func needMessage(v *verdict.Verdict) string {
	msg := fmt.Sprintf("too few samples for alpha %g over %d tests", v.Alpha, v.Tests)
	if v.Need > 0 {
		msg += fmt.Sprintf("; %d per side would do", v.Need)
	}
	if v.Unreachable > 0 {
		msg += fmt.Sprintf("; %d are so tied that no count up to %d would", v.Unreachable, verdict.MaxSamples)
	}
	return msg
}

// malformedSummary names a file's first malformed line and counts the
// others.
func malformedSummary(s *benchdata.Set) string {
	msg := fmt.Sprintf("malformed results: %s", s.Malformed[0])
	if n := len(s.Malformed); n > 1 {
		msg += fmt.Sprintf(" (and %d more lines)", n-1)
	}
	return msg
}

// printVerdict prints one row per comparison (exactly equal ones only
// counted), the benchmarks found on one side only, and every regression
// on its own line at the end.
func printVerdict(w io.Writer, m *verdict.Matched, v *verdict.Verdict, o verdict.Options) {
	exactSame := 0
	for _, g := range m.Groups {
		exactSame += printGroup(w, g, v)
	}
	printTotals(w, v, o, exactSame)
	printOneSide(w, "base", m.BaseOnly)
	printOneSide(w, "head", m.HeadOnly)
	printRegressions(w, v)
}

// printGroup prints the table of group g's comparisons, under the group's
// name unless it is "", and returns how many it left out as exactly
// equal.
func printGroup(w io.Writer, g string, v *verdict.Verdict) (exactSame int) {
	if g != "" {
		fmt.Fprintf(w, "\n%s\n", g)
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "benchmark\tunit\tbase\thead\tdelta\tp (Holm level)\tverdict")
	for _, c := range v.Comparisons {
		if c.Group != g {
			continue
		}
		if c.Exact && c.Status == verdict.Same && c.Delta == 0 {
			exactSame++
			continue
		}
		scale := benchunit.CommonScale([]float64{c.BaseSum.Center, c.HeadSum.Center}, benchunit.ClassOf(c.Unit))
		test := "exact"
		if !c.Exact {
			test = fmt.Sprintf("p=%.3g (%.2g) n=%d+%d", c.P, c.Threshold, len(c.Base), len(c.Head))
		}
		status := c.Status.String()
		if c.Note != "" && c.Note != "exact" {
			status += " (" + c.Note + ")"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", c.Name, c.Unit, formatSum(scale, c.BaseSum, c.Exact), formatSum(scale, c.HeadSum, c.Exact), formatDelta(c.Delta), test, status)
	}
	tw.Flush()
	return exactSame
}

// printTotals prints how the comparisons were made and what they found.
func printTotals(w io.Writer, v *verdict.Verdict, o verdict.Options, exactSame int) {
	fmt.Fprintf(w, "\n%d comparisons: %d by U test at family-wise alpha %g (Holm), %d exact", len(v.Comparisons), v.Tests, v.Alpha, len(v.Comparisons)-v.Tests)
	if exactSame > 0 {
		fmt.Fprintf(w, " (%d exactly equal, not shown)", exactSame)
	}
	fmt.Fprintf(w, "; minimum effect %s", pctString(o.MinEffect))
	if len(o.Floors) > 0 {
		fmt.Fprintf(w, ", or the benchmark's noise floor")
	}
	fmt.Fprintf(w, ".\n%d improved, %d regressed, %d undecided.\n", v.Count(verdict.Improved), v.Count(verdict.Regressed), v.Count(verdict.Undecided))
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
		p := "exact"
		if !c.Exact {
			p = fmt.Sprintf("p=%.3g", c.P)
		}
		fmt.Fprintf(w, "  REGRESSION %s %s %s (%s)\n", name, c.Unit, formatDelta(c.Delta), p)
	}
}

// formatSum is a summary at the scale: its center, and its interval
// unless the unit is exact.
func formatSum(scale benchunit.Scaler, s benchmath.Summary, exact bool) string {
	if exact {
		return scale.Format(s.Center)
	}
	return fmt.Sprintf("%s ± %s", scale.Format(s.Center), s.PctRangeString())
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
