package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/loopbench/loopbench"
	"github.com/loopbench/loopbench/internal/report"
	"github.com/loopbench/loopbench/peers"
	"golang.org/x/perf/benchproc"
)

const reportUsage = `usage: loopbench report [-o DIR] [-filter EXPR] FILE...

Reads benchmark results (any benchfmt: loopbench run's raw.txt,
scripts/bench.sh output, plain go test -bench output, gate files, peer
results) and writes, to DIR:

  summary.md   per workload and unit one table: rows the cases, columns the
               variants (the default first) and the baselines, each cell the
               median ± the 95 % confidence interval of the median and its
               ratio to the default, the machine's configuration on top
  *.svg        plots: scaling curves on log-log axes where the cases sweep
               a size (pending timers, registered fds, timers from cold),
               else bars per variant with interval whiskers
  report.html  one self-contained page with every table and plot
  sweeps.svg   when the files hold load sweeps (load -sweep, peers -sweep,
               merge of sweeps): every server at one -percentile against
               the offered rate, knees marked; sweep-N.svg each sweep at
               every percentile; sweeps.md the knees (also printed)

It prints the tables. Results are grouped as benchstat groups them (golang.
org/x/perf benchproc): a table per benchmark name and unit, columns by the
keys /impl, /ready, /timers, /selector, /cancel and by any configuration
(commit, side, file) under which one benchmark has several values.

Exit status: 0 ok; 1 some lines could not be read (the report covers the
rest, and the message names the first); 2 a usage error, a missing file,
or no benchmark result at all.

Examples:
  loopbench report results/2026-11-23-host-abc1234/raw.txt
  loopbench report -o /tmp/peers results/run/raw.txt results/run/peers.txt

Flags:
`

func runReport(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("report", flag.ContinueOnError)
	fs.Usage = func() { fmt.Fprint(stderr, reportUsage); fs.PrintDefaults() }
	out := fs.String("o", "", "output directory (default: the first file's directory when it is raw.txt, else FILE.report)")
	filterExpr := fs.String("filter", "", "use only the results this benchstat filter matches")
	pct := fs.String("percentile", "p99", "the percentile of sweeps.svg: p50, p90, p99, p99.9 or max")
	fs.SetOutput(stderr)
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return usageError{err.Error()}
	}
	if fs.NArg() == 0 {
		return usageError{"want at least one results file"}
	}
	var filter *benchproc.Filter
	if *filterExpr != "" {
		f, err := benchproc.NewFilter(*filterExpr)
		if err != nil {
			msg, _, _ := strings.Cut(err.Error(), "\n")
			return usageError{fmt.Sprintf("-filter %q: %s", *filterExpr, msg)}
		}
		filter = f
	}
	if report.PercentileIndex(*pct) < 0 {
		return usageError{fmt.Sprintf("-percentile %q: want one of %s", *pct, strings.Join(report.SweepPercentiles, ", "))}
	}
	dir := *out
	if dir == "" {
		dir = defaultReportDir(fs.Arg(0))
	}
	err := writeReport(stdout, stderr, fs.Args(), dir, filter, "")
	if exitCode(err) == 2 {
		return err
	}
	if serr := writeSweepReport(stdout, stderr, fs.Args(), dir, *pct); serr != nil && err == nil {
		err = serr
	}
	return err
}

// defaultReportDir is where a report of path goes: next to a raw.txt, else
// in path.report.
func defaultReportDir(path string) string {
	if filepath.Base(path) == "raw.txt" {
		return filepath.Dir(path)
	}
	return strings.TrimSuffix(path, filepath.Ext(path)) + ".report"
}

// writeReport reads files, writes the report to dir and prints its
// tables; run and report share it.
func writeReport(stdout, stderr io.Writer, files []string, dir string, filter *benchproc.Filter, title string) error {
	rep, err := report.Read(files, report.Options{Filter: filter, Default: loopbench.Config{}.String(), Title: title, Peers: peers.Names})
	if err != nil {
		if len(rep.Warnings) > 0 {
			err = fmt.Errorf("%w (%d lines could not be read, the first: %s)", err, len(rep.Warnings), rep.Warnings[0])
		}
		return exitError{2, err}
	}
	if _, err := rep.WriteDir(dir); err != nil {
		return err
	}
	if err := rep.WriteTextWidth(stdout, termWidth(stdout)); err != nil {
		return err
	}
	fmt.Fprintf(stderr, "report: %s\n", filepath.Join(dir, "report.html"))
	if n := len(rep.Warnings); n > 0 {
		return fmt.Errorf("%d lines could not be read, the first: %s; the report covers the rest", n, rep.Warnings[0])
	}
	return nil
}
