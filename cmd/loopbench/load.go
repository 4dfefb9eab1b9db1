package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"text/tabwriter"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"
	"github.com/loopbench/loopbench/internal/cpu"
	"github.com/loopbench/loopbench/internal/load"
	"github.com/loopbench/loopbench/internal/report"
	"github.com/montanaflynn/stats"
)

const loadUsage = `usage: loopbench load -addr host:port [flags]

Sends request/response round trips of -size bytes over -conns TCP
connections to an echo server (loopbench serve, gonet, or any other). With
-rate R it keeps a fixed schedule of R requests per second and measures
latency from each request's intended send time (coordinated omission
corrected, as wrk2), with the uncorrected figure next to it; -rate 0 is a
closed loop. Prints percentiles, achieved vs offered rate, errors grouped
by text, and the generator's own CPU use.

What is counted: requests are sent for -warmup and then -duration; every
response that arrives in the -duration window counts, whenever its request
was scheduled, with its corrected latency from its intended time (so under
overload the warmup's backlog is measured, not dropped). No request is sent
after the window. Each request must complete within -timeout of its send:
one that times out, fails or gets a reply other than its echo is an error,
and its connection is dialled again; a stalled server ends the run by the
window's end plus -timeout.

Exit status: 0 when requests completed and errors stayed within
-max-errors; 1 when nothing completed, errors passed -max-errors, or the
run was interrupted (Ctrl-C: the output says "interrupted after X of Y"
and the benchfmt output carries it as a config line); 2 a usage error.

Examples:
  loopbench load -addr 127.0.0.1:9000 -conns 10 -rate 20000 -duration 10s
  loopbench load -addr 127.0.0.1:9000 -count 10 -format benchfmt > load.txt
  loopbench load -addr server:9000 -rate 20000 -start-at 2026-11-23T10:00:00Z -out gen1.json
  loopbench merge gen1.json gen2.json gen3.json

Flags:
`

type loadFlags struct {
	cfg       load.Config
	format    string
	cpus      string
	count     int
	maxErrors string
	maxErr    float64
	reportDir string
	out       string // -out: the mergeable result ("-": stdout)
	name      string // -name
	startAt   string // -start-at, as given
	tlsLine   string // what -tls dials with, for the output
}

func parseLoad(args []string, stderr io.Writer) (loadFlags, error) {
	fs := flag.NewFlagSet("load", flag.ContinueOnError)
	fs.Usage = func() { fmt.Fprint(stderr, loadUsage); fs.PrintDefaults() }
	var f loadFlags
	c := &f.cfg
	fs.StringVar(&c.Addr, "addr", "", "address of the echo server (required)")
	fs.StringVar(&c.Label, "label", "", "names the run in benchfmt and JSON output (default: the address)")
	fs.IntVar(&c.Conns, "conns", 10, "connections")
	fs.IntVar(&c.Size, "size", 1024, "message size in bytes (at least 8)")
	fs.DurationVar(&c.Duration, "duration", 10*time.Second, "the measured window")
	fs.DurationVar(&c.Warmup, "warmup", time.Second, "sending before the window")
	fs.DurationVar(&c.Timeout, "timeout", load.DefaultTimeout, "per-request timeout")
	fs.Float64Var(&c.Rate, "rate", 0, "requests per second over all connections; 0 = closed loop")
	fs.Int64Var(&c.Requests, "requests", 0, "stop after this many measured requests (0: no limit)")
	fs.IntVar(&f.count, "count", 1, "runs, one after the other, into one output")
	fs.StringVar(&f.maxErrors, "max-errors", "1%", "the error rate above which the run fails (exit 1)")
	fs.StringVar(&f.format, "format", "table", "output: table, benchfmt or json")
	fs.StringVar(&f.cpus, "cpu", "", "pin the generator to these CPUs (e.g. 1 or 2-3)")
	fs.StringVar(&f.reportDir, "report", "", "write the latency percentile spectrum (latency.svg) to this directory")
	fs.StringVar(&f.out, "out", "", "write the mergeable result (histograms, window, counts, CPU) to this file, one JSON line; - for stdout, after the table (see loopbench merge)")
	fs.StringVar(&f.name, "name", "", "names this generator in -out (default: the host name)")
	fs.StringVar(&f.startAt, "start-at", "", "start sending at this wall-clock instant (RFC 3339), connections opened before: give N generators the same one")
	tlsf := addLoadTLSFlags(fs)
	if err := parseFlags(fs, args, stderr); err != nil {
		return f, err
	}
	if err := tlsf.apply(&f); err != nil {
		return f, err
	}
	if c.Addr == "" {
		return f, usageError{"-addr is required"}
	}
	if f.format != "table" && f.format != "benchfmt" && f.format != "json" {
		return f, usageError{fmt.Sprintf("-format %q: want table, benchfmt or json", f.format)}
	}
	if f.count < 1 {
		return f, usageError{fmt.Sprintf("-count %d: want at least 1", f.count)}
	}
	if c.Timeout == 0 {
		return f, usageError{"-timeout 0s: want a positive duration"}
	}
	if err := c.Validate(); err != nil {
		return f, usageError{err.Error()}
	}
	e, err := parseEffect(f.maxErrors)
	if err != nil || e >= 1 {
		return f, usageError{fmt.Sprintf("-max-errors %q: want a percentage below 100%%, such as 1%%", f.maxErrors)}
	}
	f.maxErr = e
	if f.startAt != "" {
		t, err := time.Parse(time.RFC3339Nano, f.startAt)
		if err != nil {
			return f, usageError{fmt.Sprintf("-start-at %q: want an RFC 3339 time such as 2026-11-23T10:00:00Z", f.startAt)}
		}
		c.StartAt = t
	}
	if f.out != "" && f.count > 1 {
		return f, usageError{"-out holds one run: use -count 1 (run N generators side by side and merge them instead)"}
	}
	if f.name == "" {
		f.name, _ = os.Hostname()
	}
	if c.Label == "" {
		c.Label = c.Addr
	}
	return f, nil
}

func runLoad(args []string, stdout, stderr io.Writer) error {
	f, err := parseLoad(args, stderr)
	if err != nil {
		return err
	}
	if err := pin(f.cpus); err != nil {
		return err
	}
	writeTLSLine(f, stdout, stderr)
	ctx, stop := interruptContext()
	defer stop()
	var reps []load.Report
	for range f.count {
		rep, err := load.Run(ctx, f.cfg)
		if err != nil {
			if len(reps) > 0 {
				writeLoad(stdout, f, reps)
			}
			return err
		}
		reps = append(reps, rep)
		warnLoad(stderr, rep)
		if rep.Interrupted || ctx.Err() != nil {
			break
		}
	}
	if err := writeLoad(stdout, f, reps); err != nil {
		return err
	}
	if f.out != "" && len(reps) > 0 {
		if err := writeLoadResult(stdout, f, reps[0]); err != nil {
			return err
		}
	}
	if f.reportDir != "" {
		if err := writeSpectrum(f.reportDir, f.cfg, reps); err != nil {
			return err
		}
		fmt.Fprintf(stderr, "report: %s\n", filepath.Join(f.reportDir, "latency.svg"))
	}
	return loadVerdict(f, reps)
}

// writeSpectrum draws the runs' corrected and uncorrected latency as a
// percentile spectrum, from their merged histograms.
func writeSpectrum(dir string, cfg load.Config, reps []load.Report) error {
	var series []report.SpectrumSeries
	for _, m := range []struct {
		name string
		h    func(load.Report) *hdrhistogram.Histogram
	}{
		{"corrected (from the intended send)", func(r load.Report) *hdrhistogram.Histogram { return r.CorrectedHist }},
		{"uncorrected (from the actual send)", func(r load.Report) *hdrhistogram.Histogram { return r.UncorrectedHist }},
	} {
		merged := load.NewHistogram()
		for _, r := range reps {
			if h := m.h(r); h != nil {
				merged.Merge(h)
			}
		}
		series = append(series, report.SpectrumSeries{Name: m.name, Points: spectrumPoints(merged)})
	}
	title := fmt.Sprintf("%s: %d conns, %d bytes, %s", cfg.Label, cfg.Conns, cfg.Size, rateName(cfg.Rate))
	svg, err := report.Spectrum(title, series)
	if err != nil {
		return fmt.Errorf("-report: %w", err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "latency.svg"), svg, 0o644)
}

func rateName(r float64) string {
	if r == 0 {
		return "closed loop"
	}
	return fmt.Sprintf("%.0f req/s offered", r)
}

// spectrumPoints reads a histogram (in µs) at quantiles spaced evenly on
// the spectrum's axis, ten a decade of 1/(1-q), up to what its count
// resolves.
func spectrumPoints(h *hdrhistogram.Histogram) []report.SpectrumPoint {
	var pts []report.SpectrumPoint
	n := float64(h.TotalCount())
	for k := 0; ; k++ {
		x := math.Pow(10, float64(k)/10)
		if x > n {
			break
		}
		q := 1 - 1/x
		pts = append(pts, report.SpectrumPoint{Quantile: q, Latency: time.Duration(h.ValueAtQuantile(100*q)) * time.Microsecond})
	}
	return pts
}

// loadVerdict fails the command for a run that measured nothing, had too
// many errors, or was interrupted.
func loadVerdict(f loadFlags, reps []load.Report) error {
	for i, rep := range reps {
		which := ""
		if f.count > 1 {
			which = fmt.Sprintf("run %d of %d: ", i+1, f.count)
		}
		switch {
		case rep.Interrupted:
			return fmt.Errorf("%sinterrupted after %v of %v: %d requests measured", which, rep.Elapsed.Round(time.Millisecond), rep.Duration, rep.Requests)
		case rep.Requests == 0:
			return fmt.Errorf("%sno request completed in the window (%d errors%s)", which, rep.Errors, firstError(rep))
		case rep.ErrorRate() > f.maxErr:
			return fmt.Errorf("%serror rate %.2f%% is above -max-errors %s (%d errors%s)", which, 100*rep.ErrorRate(), f.maxErrors, rep.Errors, firstError(rep))
		}
	}
	if len(reps) < f.count {
		return fmt.Errorf("interrupted after %d of %d runs", len(reps), f.count)
	}
	return nil
}

func firstError(rep load.Report) string {
	if len(rep.ErrorTexts) == 0 {
		return ""
	}
	return fmt.Sprintf(", the most frequent %dx %s", rep.ErrorTexts[0].Count, rep.ErrorTexts[0].Text)
}

// warnLoad warns when the run's figures describe the generator rather
// than the server.
func warnLoad(stderr io.Writer, rep load.Report) {
	if rep.PacingLagP99 > 100*time.Microsecond {
		fmt.Fprintf(stderr, "loopbench load: warning: the generator's own pacing lagged by %v (p99); the corrected latencies include it: pin the generator apart (-cpu) or lower -rate\n", rep.PacingLagP99)
	}
	if rep.Behind {
		fmt.Fprintf(stderr, "loopbench load: warning: fell behind the schedule (%.0f of %.0f req/s): the server or the generator saturates; pin them apart with -cpu\n", rep.Achieved, rep.Offered)
	}
	if c := rep.Cores(); c >= 0.9 {
		fmt.Fprintf(stderr, "loopbench load: warning: the generator kept %.2f cores busy (%d CPUs usable): a client this busy measures itself; add generators on other hosts (loopbench merge)\n", c, runtime.GOMAXPROCS(0))
	}
}

func pin(list string) error {
	if list == "" {
		return nil
	}
	cpus, err := cpu.Parse(list)
	if err != nil {
		return usageError{err.Error()}
	}
	if err := cpu.Check(cpus); err != nil {
		return usageError{fmt.Sprintf("-cpu %s: %v", list, err)}
	}
	return cpu.Pin(cpus)
}

func writeLoad(w io.Writer, f loadFlags, reps []load.Report) error {
	switch f.format {
	case "json":
		return writeLoadJSON(w, f.cfg, reps)
	case "benchfmt":
		writeBenchfmt(w, f.cfg, reps)
		return nil
	}
	for i, rep := range reps {
		if i > 0 {
			fmt.Fprintln(w)
		}
		if err := writeTable(w, f.cfg, rep); err != nil {
			return err
		}
	}
	if len(reps) > 1 {
		writeRunsSummary(w, reps)
	}
	return nil
}

// writeRunsSummary describes -count runs together: the spread of a few
// runs' achieved rates and p99s, with montanaflynn/stats (a handful of
// values, summarized once: what it is for; percentiles within a run come
// from the HDR histograms).
func writeRunsSummary(w io.Writer, reps []load.Report) {
	var rates, p99s []float64
	for _, r := range reps {
		rates = append(rates, r.Achieved)
		p99s = append(p99s, float64(r.Corrected.P99.Microseconds()))
	}
	med, _ := stats.Median(rates)
	lo, _ := stats.Min(rates)
	hi, _ := stats.Max(rates)
	sd, _ := stats.StandardDeviationSample(rates)
	p99, _ := stats.Median(p99s)
	p99lo, _ := stats.Min(p99s)
	p99hi, _ := stats.Max(p99s)
	cv := 0.0
	if med > 0 {
		cv = 100 * sd / med
	}
	fmt.Fprintf(w, "\nover %d runs: %.0f req/s median (%.0f to %.0f, sd %.1f%%), corrected p99 %v median (%v to %v)\n",
		len(reps), med, lo, hi, cv, time.Duration(p99)*time.Microsecond, time.Duration(p99lo)*time.Microsecond, time.Duration(p99hi)*time.Microsecond)
}

// loadJSON is the JSON output: the configuration and one entry per run.
type loadJSON struct {
	Label     string         `json:"label"`
	Addr      string         `json:"addr"`
	Conns     int            `json:"conns"`
	SizeBytes int            `json:"size_bytes"`
	RateRPS   float64        `json:"rate_rps"`
	Duration  string         `json:"duration"`
	Warmup    string         `json:"warmup"`
	Timeout   string         `json:"timeout"`
	Runs      []load.JSONRun `json:"runs"`
}

func writeLoadJSON(w io.Writer, cfg load.Config, reps []load.Report) error {
	out := loadJSON{Label: cfg.Label, Addr: cfg.Addr, Conns: cfg.Conns, SizeBytes: cfg.Size, RateRPS: cfg.Rate,
		Duration: cfg.Duration.String(), Warmup: cfg.Warmup.String(), Timeout: timeoutOf(cfg).String()}
	for _, rep := range reps {
		out.Runs = append(out.Runs, rep.JSON())
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}

func timeoutOf(cfg load.Config) time.Duration {
	if cfg.Timeout == 0 {
		return load.DefaultTimeout
	}
	return cfg.Timeout
}

func writeTable(w io.Writer, cfg load.Config, rep load.Report) error {
	fmt.Fprintf(w, "%s: %d requests in %v over %d connections of %d bytes: %.0f req/s", cfg.Label, rep.Requests, rep.Elapsed.Round(time.Millisecond), cfg.Conns, cfg.Size, rep.Achieved)
	if rep.Offered > 0 {
		fmt.Fprintf(w, " (offered %.0f)", rep.Offered)
	}
	fmt.Fprintf(w, ", %d errors", rep.Errors)
	if rep.Errors > 0 {
		fmt.Fprintf(w, " (%.3g%%)", 100*rep.ErrorRate())
	}
	fmt.Fprintln(w)
	if rep.Interrupted {
		fmt.Fprintf(w, "interrupted after %v of %v\n", rep.Elapsed.Round(time.Millisecond), rep.Duration)
	}
	for _, e := range rep.ErrorTexts {
		fmt.Fprintf(w, "  %dx %s\n", e.Count, e.Text)
	}
	if err := writeLatencies(w, "latency", rep.Corrected, rep.Uncorrected); err != nil {
		return err
	}
	_, err := fmt.Fprintf(w, "generator CPU: %.2f cores over %v\n", rep.Cores(), rep.Wall.Round(time.Millisecond))
	return err
}

// writeLatencies writes the corrected and uncorrected percentiles as a
// table headed title.
func writeLatencies(w io.Writer, title string, corrected, uncorrected load.Latencies) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "%s\tp50\tp90\tp99\tp99.9\tmax\t\n", title)
	for _, r := range []struct {
		name string
		l    load.Latencies
	}{{"corrected", corrected}, {"uncorrected", uncorrected}} {
		fmt.Fprintf(tw, "%s\t%v\t%v\t%v\t%v\t%v\t\n", r.name, r.l.P50, r.l.P90, r.l.P99, r.l.P999, r.l.Max)
	}
	return tw.Flush()
}

// benchName is the run's benchmark name: the label is a name segment, so
// runs against two servers never merge.
func benchName(cfg load.Config) string {
	return fmt.Sprintf("BenchmarkLoad/label=%s/size=%d/conns=%d/rate=%.0f-%d", nameSegment(cfg.Label), cfg.Size, cfg.Conns, cfg.Rate, runtime.GOMAXPROCS(0))
}

// writeBenchfmt writes the runs as benchmark results, one line each, with
// the unit metadata benchstat needs; an interrupted run is preceded by an
// "interrupted" configuration line.
func writeBenchfmt(w io.Writer, cfg load.Config, reps []load.Report) {
	for _, kv := range machineConfig() {
		fmt.Fprintf(w, "%s: %s\n", kv[0], kv[1])
	}
	fmt.Fprintln(w, "Unit req/s better=higher")
	for _, u := range []string{"p50-ns", "p99-ns", "p99.9-ns", "max-ns", "p99-uncorrected-ns", "errors", "generator-cores"} {
		fmt.Fprintf(w, "Unit %s better=lower\n", u)
	}
	for _, rep := range reps {
		if rep.Interrupted {
			fmt.Fprintf(w, "interrupted: after %v of %v\n", rep.Elapsed.Round(time.Millisecond), rep.Duration)
		}
		fmt.Fprintf(w, "%s\t%d\t%.0f req/s\t%d p50-ns\t%d p99-ns\t%d p99.9-ns\t%d max-ns\t%d p99-uncorrected-ns\t%d errors\t%.3f generator-cores\n",
			benchName(cfg), max(rep.Requests, 1), rep.Achieved,
			rep.Corrected.P50, rep.Corrected.P99, rep.Corrected.P999, rep.Corrected.Max, rep.Uncorrected.P99, rep.Errors, rep.Cores())
	}
}
