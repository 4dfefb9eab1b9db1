package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/loopbench/loopbench/internal/cpu"
	"github.com/loopbench/loopbench/internal/load"
	"github.com/loopbench/loopbench/internal/loadresult"
)

const mergeUsage = `usage: loopbench merge [-format table|benchfmt|json] FILE...

Merges the results of N load generators run against one server (each
written by 'loopbench load -out FILE'; a file may hold other lines around
its results, such as a pod's log): requests and rates summed, latency
percentiles from the merged HDR histograms (never an average of
percentiles), corrected and uncorrected, and a table per generator. Warns
when the windows overlap by less than 90% of the longest (start the
generators with -start-at), when a generator fell behind its schedule, and
when one kept its CPUs busy (it measures itself).

Exit status: 0 merged; 2 a usage error or a file that is missing, has no
result or a malformed one (named; the other files are still merged and
printed).

Flags:
`

func runMerge(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("merge", flag.ContinueOnError)
	fs.Usage = func() { fmt.Fprint(stderr, mergeUsage); fs.PrintDefaults() }
	format := fs.String("format", "table", "output: table, benchfmt or json")
	fs.SetOutput(stderr)
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return usageError{err.Error()}
	}
	if *format != "table" && *format != "benchfmt" && *format != "json" {
		return usageError{fmt.Sprintf("-format %q: want table, benchfmt or json", *format)}
	}
	if fs.NArg() == 0 {
		return usageError{"no result files given"}
	}
	var all []loadresult.Result
	var bad error
	for _, name := range fs.Args() {
		rs, err := readResults(name)
		all = append(all, rs...)
		if err != nil && bad == nil {
			bad = err
		} else if err != nil {
			fmt.Fprintf(stderr, "loopbench merge: %v\n", err)
		}
	}
	if len(all) > 0 {
		m, err := loadresult.Merge(all)
		if err != nil {
			return err
		}
		for _, w := range m.Warnings {
			fmt.Fprintf(stderr, "loopbench merge: warning: %s\n", w)
		}
		if err := writeMerged(stdout, *format, m); err != nil {
			return err
		}
	}
	if bad != nil {
		return usageError{bad.Error()}
	}
	return nil
}

// writeLoadResult writes load's -out: the mergeable result of the run.
func writeLoadResult(stdout io.Writer, f loadFlags, rep load.Report) error {
	cpus := runtime.GOMAXPROCS(0)
	if allowed, err := cpu.Allowed(); err == nil && len(allowed) > 0 {
		cpus = min(cpus, len(allowed))
	}
	r, err := loadresult.FromReport(rep, f.cfg, f.name, cpus)
	if err != nil {
		return err
	}
	if f.out == "-" {
		return r.Write(stdout)
	}
	file, err := os.Create(f.out)
	if err != nil {
		return fmt.Errorf("-out: %w", err)
	}
	if err := r.Write(file); err != nil {
		file.Close()
		return fmt.Errorf("-out: %w", err)
	}
	return file.Close()
}

func readResults(name string) ([]loadresult.Result, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return loadresult.Read(name, f)
}

func writeMerged(w io.Writer, format string, m loadresult.Merged) error {
	switch format {
	case "json":
		return writeMergedJSON(w, m)
	case "benchfmt":
		return writeMergedBenchfmt(w, m)
	}
	return writeMergedTable(w, m)
}

func writeMergedTable(w io.Writer, m loadresult.Merged) error {
	fmt.Fprintf(w, "%d generators: %d requests, %.0f req/s", len(m.Generators), m.Requests, m.AchievedRPS)
	if m.OfferedRPS > 0 {
		fmt.Fprintf(w, " (offered %.0f)", m.OfferedRPS)
	}
	fmt.Fprintf(w, ", %d errors", m.Errors)
	if m.Errors > 0 {
		fmt.Fprintf(w, " (%.3g%%)", 100*m.ErrorRate())
	}
	fmt.Fprintf(w, "; common window %v (%.0f%% of the longest)\n", commonWindow(m), 100*m.Overlap)
	if err := writeLatencies(w, "merged latency", m.Corrected, m.Uncorrected); err != nil {
		return err
	}
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "generator\trequests\treq/s\terrors\tp50\tp99\tmax\tcores\tstart\twindow\t")
	for _, r := range m.Generators {
		p := load.Percentiles(r.Corrected())
		fmt.Fprintf(tw, "%s\t%d\t%.0f\t%d\t%v\t%v\t%v\t%.2f/%d\t%s\t%v\t\n", r.Name, r.Requests, r.AchievedRPS, r.Errors,
			p.P50, p.P99, p.Max, r.CPUCores, r.CPUs, r.WindowStart.Format("15:04:05.000"), r.WindowEnd.Sub(r.WindowStart).Round(time.Millisecond))
	}
	return tw.Flush()
}

func commonWindow(m loadresult.Merged) time.Duration {
	return max(m.End.Sub(m.Start), 0).Round(time.Millisecond)
}

type mergedJSON struct {
	Generators   int                `json:"generators"`
	Requests     int64              `json:"requests"`
	Errors       int64              `json:"errors"`
	ErrorRate    float64            `json:"error_rate"`
	OfferedRPS   float64            `json:"offered_rps"`
	AchievedRPS  float64            `json:"achieved_rps"`
	CommonStart  time.Time          `json:"common_window_start"`
	CommonEnd    time.Time          `json:"common_window_end"`
	Overlap      float64            `json:"overlap"`
	Corrected    load.JSONLatencies `json:"corrected_latency"`
	Uncorrected  load.JSONLatencies `json:"uncorrected_latency"`
	Warnings     []string           `json:"warnings"`
	PerGenerator []mergedGenerator  `json:"per_generator"`
}

type mergedGenerator struct {
	Name        string             `json:"name"`
	Requests    int64              `json:"requests"`
	Errors      int64              `json:"errors"`
	OfferedRPS  float64            `json:"offered_rps"`
	AchievedRPS float64            `json:"achieved_rps"`
	WindowStart time.Time          `json:"window_start"`
	WindowEnd   time.Time          `json:"window_end"`
	CPUCores    float64            `json:"generator_cpu_cores"`
	CPUs        int                `json:"generator_cpus"`
	Behind      bool               `json:"behind_schedule"`
	Corrected   load.JSONLatencies `json:"corrected_latency"`
}

func writeMergedJSON(w io.Writer, m loadresult.Merged) error {
	out := mergedJSON{
		Generators: len(m.Generators), Requests: m.Requests, Errors: m.Errors, ErrorRate: m.ErrorRate(),
		OfferedRPS: m.OfferedRPS, AchievedRPS: m.AchievedRPS, CommonStart: m.Start, CommonEnd: m.End, Overlap: m.Overlap,
		Corrected: load.JSONLat(m.Corrected), Uncorrected: load.JSONLat(m.Uncorrected), Warnings: m.Warnings,
	}
	if out.Warnings == nil {
		out.Warnings = []string{}
	}
	for _, r := range m.Generators {
		out.PerGenerator = append(out.PerGenerator, mergedGenerator{
			Name: r.Name, Requests: r.Requests, Errors: r.Errors, OfferedRPS: r.OfferedRPS, AchievedRPS: r.AchievedRPS,
			WindowStart: r.WindowStart, WindowEnd: r.WindowEnd, CPUCores: r.CPUCores, CPUs: r.CPUs, Behind: r.Behind,
			Corrected: load.JSONLat(load.Percentiles(r.Corrected())),
		})
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}

// writeMergedBenchfmt writes the merged run and each generator as
// benchmark lines (generator=merged, generator=<name>), the units as
// load writes them.
func writeMergedBenchfmt(w io.Writer, m loadresult.Merged) error {
	first := m.Generators[0]
	fmt.Fprintln(w, "Unit req/s better=higher")
	for _, u := range []string{"p50-ns", "p99-ns", "p99.9-ns", "max-ns", "p99-uncorrected-ns", "errors"} {
		fmt.Fprintf(w, "Unit %s better=lower\n", u)
	}
	fmt.Fprintf(w, "generators: %d\n", len(m.Generators))
	line := func(gen string, n int64, rps float64, c, u load.Latencies, errs int64) {
		fmt.Fprintf(w, "BenchmarkMerge/label=%s/size=%d/generator=%s\t%d\t%.0f req/s\t%d p50-ns\t%d p99-ns\t%d p99.9-ns\t%d max-ns\t%d p99-uncorrected-ns\t%d errors\n",
			nameSegment(first.Label), first.SizeBytes, nameSegment(gen), max(n, 1), rps, c.P50, c.P99, c.P999, c.Max, u.P99, errs)
	}
	line("merged", m.Requests, m.AchievedRPS, m.Corrected, m.Uncorrected, m.Errors)
	for _, r := range m.Generators {
		line(r.Name, r.Requests, r.AchievedRPS, load.Percentiles(r.Corrected()), load.Percentiles(r.Uncorrected()), r.Errors)
	}
	return nil
}

// nameSegment makes s usable as a benchmark name segment's value: no
// slash, which separates segments, and no blank, which ends the name.
func nameSegment(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '/' || r == ' ' || r == '\t' {
			return '_'
		}
		return r
	}, s)
}
