// Package report turns benchmark results files into the report people
// read: summary.md (one table per workload and unit, rows the cases,
// columns the variants and baselines, each cell the median ± its 95 %
// confidence interval and its ratio to the default variant), SVG plots
// (bars with interval whiskers, scaling curves on log-log axes), and one
// self-contained report.html holding both.
//
// It reads any benchfmt (loopbench run's raw.txt, scripts/bench.sh output,
// plain go test -bench output, gate files, peer programs' output) through
// golang.org/x/perf: package benchdata reads (the reader compare and gate
// use), benchproc projects as benchstat
// does (a table per benchmark name and unit, columns by the variant keys
// /impl, /ready, /timers, /selector and /cancel, rows by the rest of the
// name), benchmath summarizes, benchunit scales.
//
// Load's own figures are drawn here too, on the same panels: a latency
// percentile spectrum (Spectrum), sweeps against the offered rate
// (SweepFigure, SweepCompare) and runs over time (SeriesFigure).
//
// Inputs resolves a report's arguments to results files (a run directory
// stands for its raw.txt) and CheckDir checks the directory a report goes
// to (new or empty, never an input's); what they refuse is an *InputError.
package report

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/loopbench/loopbench/internal/measure/benchdata"
	"golang.org/x/perf/benchfmt"
	"golang.org/x/perf/benchmath"
	"golang.org/x/perf/benchproc"
)

// VariantKeys are the name keys that make a column: a loop's parts, or
// the baseline's impl.
var VariantKeys = []string{"impl", "ready", "timers", "selector", "cancel"}

// Options shape a report.
type Options struct {
	Filter *benchproc.Filter
	// Default names the default variant ("ready=ringbuffer/timers=heap4ary/
	// selector=epoll"): its column comes first and ratios are to it.
	Default    string
	Confidence float64 // of the intervals; 0 means 0.95
	Title      string  // of summary.md and report.html; "" means "loopbench report"
	// Peers are the /impl values that name other loops (asyncio, libev...),
	// shown as peers, not as baselines.
	Peers []string
	// Layout is the columns and rows asked for; empty fields are chosen
	// by what differs between the inputs.
	Layout Layout
}

// Report is what the files held, summarized.
type Report struct {
	Title  string
	Files  []string
	Config []KV // configuration with one value over every result
	// Varying lists configuration keys with several values, each with its
	// values.
	Varying []KV
	// Machines describes each machine when the results come from
	// several (their columns are named by Machine.Label).
	Machines []*Machine
	Tables   []*Table
	Warnings []string // lines that could not be read, and the like
	Results  int
	// Banners are what a reader must know before any figure: the run was
	// interrupted, the machine was busy, many cells are wide, the in-run
	// A/A check separated identical code.
	Banners []string
	// Checks are the in-run A/A checks that passed.
	Checks []string
	// Runs name the input files when there are several: each run's
	// name (its column's, where the runs are the columns) and its path,
	// listed unless Machines list each machine's files.
	Runs []KV
	busy []KV // each run's machine-busy value, by name
}

// KV is a configuration pair or a name key and its value.
type KV struct{ Key, Value string }

// Table is one workload in one unit.
type Table struct {
	Workload, Unit string
	Better         int // +1 when higher values are better, -1 when lower are
	// Exact says the unit counts (allocs/op, B/op, assume=exact): its
	// spread is the work done, such as setup allocations amortised over a
	// varying b.N, not the machine's noise.
	Exact bool
	Cols  []Col // the first is the default variant when present: ratios are to it
	Rows  []Row
	// Common are the parts every row's name shares ("ready=ringbuffer"
	// when one ready queue ran): in the title, not in each row's label.
	Common []KV
	cells  map[[2]int]*Cell
}

// Col is a column: a variant, a baseline or a peer.
type Col struct {
	Label    string
	Parts    []KV // its variant keys and the configuration keys that split runs
	Baseline bool // an impl= baseline in Go
	Peer     bool // another loop (Options.Peers)
}

// Row is a case: the rest of the benchmark's name.
type Row struct {
	Label string
	Parts []KV // the name's key=value segments
}

// Cell holds one case's values on one column, and its comparison with its
// row's reference cell (the first of the row).
type Cell struct {
	Values      []float64
	Summary     benchmath.Summary
	Ratio       float64 // center over the reference's; 0 for the reference
	P           float64 // the U test's p-value against the reference
	Significant bool    // P < Alpha
}

// Cell returns the cell at row r and column c, or nil.
func (t *Table) Cell(r, c int) *Cell { return t.cells[[2]int{r, c}] }

// ErrNothing is returned, wrapped, when the files hold no benchmark result.
var ErrNothing = errors.New("no benchmark results")

// Read reads the files and builds the report. It fails only when nothing
// could be read at all; unreadable lines become warnings.
func Read(paths []string, o Options) (*Report, error) {
	if o.Confidence == 0 {
		o.Confidence = 0.95
	}
	rep, set, err := readFiles(paths, o)
	if err != nil {
		return rep, err
	}
	results := set.Raw
	hardware := addMachine(results)
	dims := distinctDims(rep.configDims(results), results, hardware)
	rep.machines(results)
	by, err := newProjections(o.Layout, dims, results)
	if err != nil {
		return rep, err
	}
	b := newBuilder(by.col, by.row, o)
	b.short = shortConfigValues(dims, results)
	b.ord = newOrdering(parseParts(o.Default), results)
	for _, res := range results {
		rowKey, colKey := by.row.Project(res), by.col.Project(res)
		for i, tk := range by.table.ProjectValues(res) {
			b.add(tk, rowKey, colKey, res.Values[i].Value, set.Units.GetBetter(res.Values[i].Unit))
		}
	}
	rep.Tables = b.tables()
	for _, t := range rep.Tables {
		t.Exact = set.Exact(t.Unit)
	}
	rep.banners()
	return rep, nil
}

// readFiles reads the files and returns a report that holds their title,
// names, unreadable lines and count of results, with what they held. Its
// error wraps ErrNothing when they held no result.
func readFiles(paths []string, o Options) (*Report, *benchdata.Set, error) {
	rep := &Report{Title: o.Title, Files: paths}
	if rep.Title == "" {
		rep.Title = "loopbench report"
	}
	set, err := benchdata.ReadFiles(paths, o.Filter)
	if set != nil {
		rep.Warnings = set.Malformed
		rep.Results = set.Results
	}
	if errors.Is(err, benchdata.ErrNoResults) {
		return rep, set, fmt.Errorf("%s: %w", strings.Join(paths, ", "), ErrNothing)
	} else if err != nil {
		return rep, set, err
	}
	return rep, set, nil
}

// shortConfigValues returns, for each configuration key that splits
// runs, the short labels of its values in the order they first occur.
func shortConfigValues(dims []string, results []*benchfmt.Result) map[string]map[string]string {
	short := map[string]map[string]string{}
	for _, d := range dims {
		var vals []string
		for _, r := range results {
			if v := r.GetConfig(d); !slices.Contains(vals, v) {
				vals = append(vals, v)
			}
		}
		short[d] = shortValues(d, vals)
	}
	return short
}

// projections sort results as benchstat does: into tables by name and
// unit, columns and rows as newProjections chooses.
type projections struct{ table, col, row *benchproc.Projection }

// gomaxprocsSplits reports whether one benchmark ran at several
// GOMAXPROCS (go test -cpu), which then makes columns.
func gomaxprocsSplits(results []*benchfmt.Result) bool {
	seen := map[string]string{}
	for _, res := range results {
		name, procs := splitProcs(string(res.Name))
		if procs == "" {
			continue
		}
		if prev, ok := seen[name]; ok && prev != procs {
			return true
		}
		seen[name] = procs
	}
	return false
}

// splitProcs splits "Foo/a=1-2" into "Foo/a=1" and "2".
func splitProcs(name string) (string, string) {
	if m := procsSuffix.FindStringIndex(name); m != nil {
		return name[:m[0]], name[m[0]+1:]
	}
	return name, ""
}

// configDims sets the report's constant and varying configuration and
// returns the configuration keys that split runs: those under which one
// benchmark has several values (two commits, two gate sides, two files of
// one benchmark), so that its results are never pooled.
func (rep *Report) configDims(results []*benchfmt.Result) []string {
	values, order := configValues(results)
	var dims []string
	files, names := runNames(results)
	for _, f := range files {
		rep.Runs = append(rep.Runs, KV{names[f], f})
	}
	_, machineSplit := values[MachineKey]
	for _, k := range order {
		vals := values[k]
		if machineSplit && slices.Contains(MachineKeys, k) {
			// Report.Machines describes each machine.
			if len(vals) == 1 {
				rep.Config = append(rep.Config, KV{k, vals[0]})
			}
			continue
		}
		if describesRun(k) && len(vals) > 1 {
			// Of several runs' metadata only whether a machine was busy
			// heads the report, per run; each raw.txt keeps the rest.
			if k == "machine-busy" || k == "interrupted" {
				rep.Varying = append(rep.Varying, KV{k, rep.perRun(k, vals, results)})
			}
			continue
		}
		if len(vals) == 1 || describesRun(k) {
			if !strings.HasPrefix(k, ".") {
				rep.Config = append(rep.Config, KV{k, vals[0]})
			}
			continue
		}
		seen := map[string]string{}
		split := false
		for _, res := range results {
			name, v := string(res.Name), res.GetConfig(k)
			if prev, ok := seen[name]; ok && prev != v {
				split = true
				break
			}
			seen[name] = v
		}
		if split && !describesRun(k) && !(machineSplit && slices.Contains(MachineKeys, k)) {
			dims = append(dims, k)
		}
		if (!strings.HasPrefix(k, ".") || split) && k != MachineKey && k != ".file" {
			rep.Varying = append(rep.Varying, KV{k, strings.Join(shown(vals), ", ")})
		}
	}
	return dims
}

// perRun writes a run metadata key's values: per run and named when the
// results come from several files ("runA: yes (…); runB: no"), else
// joined by " | ". Each run's machine-busy value is kept for its banner.
func (rep *Report) perRun(key string, vals []string, results []*benchfmt.Result) string {
	if rep.Runs == nil {
		return strings.Join(shown(vals), " | ")
	}
	files, names := runNames(results)
	kvs := runValues(key, results, files, names)
	if key == "machine-busy" {
		rep.busy = kvs
	}
	return joinRuns(kvs)
}

// carried counts the results that carry key.
func carried(key string, results []*benchfmt.Result) int {
	n := 0
	for _, r := range results {
		if _, ok := r.ConfigIndex(key); ok {
			n++
		}
	}
	return n
}

// shown names each value for a reader: "-" for a key some results lack.
func shown(vals []string) []string {
	out := slices.Clone(vals)
	for i, v := range out {
		if v == "" {
			out[i] = "-"
		}
	}
	return out
}

// configValues returns each configuration key's values in the order seen,
// and the keys in the order first seen. A key some results lack varies:
// "" stands for its absence.
func configValues(results []*benchfmt.Result) (map[string][]string, []string) {
	values := map[string][]string{}
	var order []string
	for _, res := range results {
		for _, c := range res.Config {
			v := string(c.Value)
			if _, ok := values[c.Key]; !ok {
				order = append(order, c.Key)
			}
			if !slices.Contains(values[c.Key], v) {
				values[c.Key] = append(values[c.Key], v)
			}
		}
	}
	for _, k := range order {
		if carried(k, results) < len(results) && !slices.Contains(values[k], "") {
			values[k] = append(values[k], "")
		}
	}
	return values, order
}
