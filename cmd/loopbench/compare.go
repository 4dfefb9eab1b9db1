package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"text/tabwriter"

	"golang.org/x/perf/benchfmt"
	"golang.org/x/perf/benchmath"
	"golang.org/x/perf/benchunit"
)

const compareUsage = `usage: loopbench compare [flags] base.txt head.txt

Compares two benchmark results files (benchfmt, as go test -bench and
loopbench run write them) benchmark by benchmark and unit by unit, with the
Mann-Whitney U test benchstat uses, and prints a benchstat-style table. It
exits 1 when any benchmark got significantly worse (p < -alpha) by more than
-min-effect, in the direction that is worse for its unit. It refuses files
whose cpu, goos or go configuration differ, unless -force.

Example:
  loopbench compare -min-effect 5% results/base/raw.txt results/head/raw.txt

Flags:
`

// series is one benchmark's values in one unit.
type series struct {
	name, unit string
	values     []float64
}

// resultsFile is what compare reads of a file.
type resultsFile struct {
	path   string
	config map[string]string
	units  benchfmt.UnitMetadataMap
	series map[[2]string]*series
	order  [][2]string
}

func readResults(path string) (*resultsFile, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	rf := &resultsFile{path: path, config: map[string]string{}, units: benchfmt.UnitMetadataMap{}, series: map[[2]string]*series{}}
	r := benchfmt.NewReader(f, path)
	for r.Scan() {
		switch rec := r.Result().(type) {
		case *benchfmt.SyntaxError:
			return nil, fmt.Errorf("malformed results file: %v", rec)
		case *benchfmt.UnitMetadata:
			rf.units[rec.UnitMetadataKey] = rec
		case *benchfmt.Result:
			rf.add(rec)
		}
	}
	if err := r.Err(); err != nil {
		return nil, err
	}
	if len(rf.order) == 0 {
		return nil, fmt.Errorf("%s: no benchmark results", path)
	}
	return rf, nil
}

func (rf *resultsFile) add(res *benchfmt.Result) {
	for _, c := range res.Config {
		if _, ok := rf.config[c.Key]; !ok {
			rf.config[c.Key] = string(c.Value)
		}
	}
	for _, v := range res.Values {
		k := [2]string{string(res.Name), v.Unit}
		s := rf.series[k]
		if s == nil {
			s = &series{name: k[0], unit: k[1]}
			rf.series[k] = s
			rf.order = append(rf.order, k)
		}
		s.values = append(s.values, v.Value)
	}
}

// parseEffect reads "5%" or "0.05".
func parseEffect(s string) (float64, error) {
	pct := strings.HasSuffix(s, "%")
	v, err := strconv.ParseFloat(strings.TrimSuffix(s, "%"), 64)
	if err != nil || v < 0 {
		return 0, fmt.Errorf("-min-effect %q: want a percentage such as 5%%", s)
	}
	if pct {
		v /= 100
	}
	return v, nil
}

func runCompare(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("compare", flag.ContinueOnError)
	fs.Usage = func() { fmt.Fprint(stderr, compareUsage); fs.PrintDefaults() }
	alpha := fs.Float64("alpha", 0.05, "significance level of the U test")
	minEffect := fs.String("min-effect", "5%", "smallest change that counts as a regression")
	force := fs.Bool("force", false, "compare files from different machines or Go versions")
	fs.SetOutput(stderr)
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return usageError{err.Error()}
	}
	if fs.NArg() != 2 {
		return usageError{"want two files: base.txt head.txt"}
	}
	effect, err := parseEffect(*minEffect)
	if err != nil {
		return usageError{err.Error()}
	}
	if *alpha <= 0 || *alpha >= 1 {
		return usageError{"-alpha must be between 0 and 1"}
	}
	base, err := readResults(fs.Arg(0))
	if err != nil {
		return err
	}
	head, err := readResults(fs.Arg(1))
	if err != nil {
		return err
	}
	if err := sameMachine(base, head); err != nil && !*force {
		return err
	}
	return compareResults(stdout, base, head, *alpha, effect)
}

// sameMachine refuses files whose cpu, goos or go differ.
func sameMachine(a, b *resultsFile) error {
	var diffs []string
	for _, k := range []string{"cpu", "goos", "go"} {
		if a.config[k] != b.config[k] {
			diffs = append(diffs, fmt.Sprintf("%s %q vs %q", k, a.config[k], b.config[k]))
		}
	}
	if diffs != nil {
		return fmt.Errorf("the files come from different setups (%s): use -force to compare them anyway", strings.Join(diffs, ", "))
	}
	return nil
}

// compareResults prints the table and returns an error naming the
// regressions, if any.
func compareResults(w io.Writer, base, head *resultsFile, alpha, effect float64) error {
	th := &benchmath.Thresholds{CompareAlpha: alpha}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "benchmark\tunit\tbase\thead\tdelta\ttest\t")
	var regressions []string
	undecided := 0
	for _, k := range base.order {
		hs := head.series[k]
		if hs == nil {
			continue
		}
		bs := base.series[k]
		s1 := benchmath.NewSample(append([]float64(nil), bs.values...), th)
		s2 := benchmath.NewSample(append([]float64(nil), hs.values...), th)
		sum1 := benchmath.AssumeNothing.Summary(s1, 0.95)
		sum2 := benchmath.AssumeNothing.Summary(s2, 0.95)
		cmp := benchmath.AssumeNothing.Compare(s1, s2)
		verdict := ""
		if cmp.P > alpha && len(cmp.Warnings) > 0 {
			verdict = "cannot decide: " + cmp.Warnings[0].Error()
			undecided++
		} else if worse(head.units, k[1], sum1.Center, sum2.Center, effect) && cmp.P < alpha {
			verdict = "REGRESSION"
			regressions = append(regressions, k[0]+" "+k[1])
		}
		scale := benchunit.CommonScale([]float64{sum1.Center, sum2.Center}, benchunit.ClassOf(k[1]))
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", k[0], k[1],
			formatSummary(scale, sum1), formatSummary(scale, sum2), cmp.FormatDelta(sum1.Center, sum2.Center), cmp, verdict)
	}
	tw.Flush()
	if undecided > 0 {
		fmt.Fprintf(w, "%d comparisons could not decide (too few samples, or all equal); see the last column.\n", undecided)
	}
	if len(regressions) > 0 {
		return fmt.Errorf("%d significant regressions beyond %.0f%%: %s", len(regressions), 100*effect, strings.Join(regressions, "; "))
	}
	return nil
}

// worse reports whether head is worse than base by more than effect, in
// the unit's better direction (lower when unknown).
func worse(units benchfmt.UnitMetadataMap, unit string, base, head, effect float64) bool {
	if base == 0 {
		return false
	}
	change := head/base - 1
	if units.GetBetter(unit) > 0 {
		return change < -effect
	}
	return change > effect
}

func formatSummary(scale benchunit.Scaler, s benchmath.Summary) string {
	return fmt.Sprintf("%s ± %s", scale.Format(s.Center), s.PctRangeString())
}
