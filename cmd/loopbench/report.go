package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"time"

	"github.com/loopbench/loopbench"
	"github.com/loopbench/loopbench/internal/harness/report"
	"github.com/loopbench/loopbench/peers"
	"golang.org/x/perf/benchproc"
)

const reportUsage = `usage: loopbench report [-out DIR] [-col KEYS] [-row KEYS] [-filter EXPR] RUN...

Reads benchmark results (a run directory stands for its raw.txt; any
benchfmt file: loopbench run's raw.txt, gate files, peer results, plain
go test -bench output) and writes to a new directory DIR summary.md (a
table per workload and unit: median ± 95 % interval and ratio to the
row's first cell), SVG plots and report.html; load sweeps add
sweeps.svg and sweeps.md, a load -out file series.svg. It prints the
tables. Results are grouped as benchstat groups them; the columns are
what differs between the inputs (machine, commit, gate side or file,
else variant), or -col and -row. The files and the grouping:
docs/cli.md, section Report.

Exit status: 0 ok; 1 some lines could not be read (the report covers the
rest, and the message names the first); 2 a usage error, a missing file,
a directory without raw.txt, an -out that exists and is not empty, or no
benchmark result at all.

Examples:
  loopbench report results/2026-11-23-host-abc1234
  loopbench report -out /tmp/two results/2026-11-25-hostA-f39ffab results/2026-11-25-hostB-f39ffab
  loopbench report -col commit -filter '.name:Timers' results/*-vm-*
  loopbench report -out /tmp/peers results/run/raw.txt results/run/peers.txt

Flags:
`

func runReport(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("report", flag.ContinueOnError)
	fs.Usage = func() { fmt.Fprint(stderr, reportUsage); fs.PrintDefaults() }
	out := fs.String("out", "", "new or empty directory of the report (default report-<date> in the current directory, with -2, -3... when taken)")
	fs.StringVar(out, "o", "", "the same as -out")
	col := fs.String("col", "", "columns: machine, commit, variant or benchstat projection keys, comma-separated (default: what differs between the inputs)")
	row := fs.String("row", "", "rows: keys as for -col (default: the rest of the benchmark name)")
	filterExpr := fs.String("filter", "", "use only the results this benchstat filter matches")
	pct := fs.String("percentile", "p99", "the percentile of sweeps.svg: p50, p90, p99, p99.9 or max")
	if err := parseArgs(fs, args, stderr); err != nil {
		return err
	}
	if fs.NArg() == 0 {
		return usageError{"want at least one run directory or results file"}
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
	files, err := report.Inputs(fs.Args())
	if err != nil {
		return usageError{err.Error()}
	}
	dir := *out
	if dir == "" {
		dir = newDir("report-" + time.Now().UTC().Format("2006-01-02"))
	} else if err := report.CheckDir(dir, files); err != nil {
		return usageError{"-out " + err.Error()}
	}
	loads, files, err := report.SplitLoadFiles(files)
	if err != nil {
		return usageError{err.Error()}
	}
	if err := report.WriteLoadSeries(dir, loads, stderr); err != nil || len(files) == 0 {
		return err
	}
	err = writeReport(stdout, stderr, files, dir, filter, "", report.Layout{Col: *col, Row: *row})
	if exitCode(err) == 2 {
		return err
	}
	if serr := report.WriteSweepReport(stdout, stderr, files, dir, *pct); serr != nil && err == nil {
		err = serr
	}
	return err
}

// writeReport reads files, writes the report to dir and prints its
// tables, laid out as lay asks, by default by what differs between the
// files; run and peers share it.
func writeReport(stdout, stderr io.Writer, files []string, dir string, filter *benchproc.Filter, title string, lay report.Layout) error {
	rep, err := report.Read(files, report.Options{Filter: filter, Default: loopbench.Config{}.String(), Title: title, Peers: peers.Names, Layout: lay})
	var le *report.LayoutError
	if errors.As(err, &le) {
		return usageError{le.Error()}
	}
	if err != nil {
		if len(rep.Warnings) > 0 {
			err = fmt.Errorf("%w (%d lines could not be read, the first: %s)", err, len(rep.Warnings), rep.Warnings[0])
		}
		return exitError{2, err}
	}
	if _, err := rep.WriteDir(dir); err != nil {
		return err
	}
	if err := rep.WriteTextWidth(stdout, summaryWidth(stdout)); err != nil {
		return err
	}
	fmt.Fprintf(stderr, "report: %s\n", filepath.Join(dir, "report.html"))
	if n := len(rep.Warnings); n > 0 {
		return fmt.Errorf("%d lines could not be read, the first: %s; the report covers the rest", n, rep.Warnings[0])
	}
	return nil
}

// summaryWidth is the width of the printed tables: the terminal's, at
// most report.MaxWidth, and report.MaxWidth in a pipe.
func summaryWidth(w io.Writer) int {
	if tw := termWidth(w); tw > 0 {
		return min(tw, report.MaxWidth)
	}
	return report.MaxWidth
}
