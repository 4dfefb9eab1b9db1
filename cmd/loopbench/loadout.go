package main

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"runtime"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/loopbench/loopbench/internal/load"
	"github.com/loopbench/loopbench/internal/loadresult"
	"github.com/montanaflynn/stats"
	"golang.org/x/perf/benchfmt"
)

// ownUnits are the units of a generator's own benchmark lines.
var ownUnits = append(append([]loadresult.Unit(nil), loadresult.Units...), loadresult.GeneratorUnits...)

// fileConfig is the machine's configuration and extra as benchfmt file
// configuration.
func fileConfig(extra ...[2]string) []benchfmt.Config {
	return configOf(append(machineConfig(), extra...)...)
}

// configOf is kvs as benchfmt file configuration.
func configOf(kvs ...[2]string) []benchfmt.Config {
	var out []benchfmt.Config
	for _, kv := range kvs {
		out = append(out, benchfmt.Config{Key: kv[0], Value: []byte(kv[1]), File: true})
	}
	return out
}

// formatRate prints a rate as a name key's value: 2000, 2500.5.
func formatRate(r float64) string { return strconv.FormatFloat(r, 'f', -1, 64) }

// benchName is a run's benchmark name: the label is a name segment, so
// runs against two servers never merge.
func benchName(cfg load.Config, rate float64) benchfmt.Name {
	return benchfmt.Name(fmt.Sprintf("Load/label=%s/size=%d/conns=%d/rate=%s-%d", nameSegment(cfg.Label), cfg.Size, cfg.Conns, formatRate(rate), runtime.GOMAXPROCS(0)))
}

// writeBenchfmt writes the runs as benchmark results through
// benchfmt.Writer, one line each, after the unit metadata benchstat
// needs; an interrupted run carries an "interrupted" configuration line.
func writeBenchfmt(w io.Writer, cfg load.Config, reps []loadresult.Result) error {
	bw := benchfmt.NewWriter(w)
	if err := loadresult.WriteUnits(bw, ownUnits); err != nil {
		return err
	}
	for _, rep := range reps {
		var extra [][2]string
		if rep.Interrupted {
			extra = append(extra, [2]string{"interrupted", fmt.Sprintf("after %v of %v", rep.Elapsed.Round(time.Millisecond), rep.Duration)})
		}
		res := &benchfmt.Result{Config: fileConfig(extra...), Name: benchName(cfg, rep.Offered), Iters: int(max(rep.Requests, 1)), Values: rep.GeneratorValues()}
		if err := bw.Write(res); err != nil {
			return err
		}
	}
	return nil
}

// loadJSON is the JSON output: the configuration and one entry per run,
// or the sweep.
type loadJSON struct {
	Label        string            `json:"label"`
	Addr         string            `json:"addr"`
	Conns        int               `json:"conns"`
	SizeBytes    int               `json:"size_bytes"`
	RateRPS      float64           `json:"rate_rps"`
	DurationNS   int64             `json:"duration_ns"`
	WarmupNS     int64             `json:"warmup_ns"`
	TimeoutNS    int64             `json:"timeout_ns"`
	PacingMethod string            `json:"pacing_method"`
	Runs         []loadresult.JSON `json:"runs,omitempty"`
	Sweep        *sweepJSON        `json:"sweep,omitempty"`
}

func newLoadJSON(cfg load.Config) loadJSON {
	return loadJSON{Label: cfg.Label, Addr: cfg.Addr, Conns: cfg.Conns, SizeBytes: cfg.Size, RateRPS: cfg.Rate,
		DurationNS: int64(cfg.Duration), WarmupNS: int64(cfg.Warmup), TimeoutNS: int64(timeoutOf(cfg)), PacingMethod: load.PacingMethod}
}

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

func writeLoadJSON(w io.Writer, cfg load.Config, reps []loadresult.Result) error {
	out := newLoadJSON(cfg)
	for _, rep := range reps {
		out.Runs = append(out.Runs, rep.JSON())
	}
	return writeJSON(w, out)
}

func timeoutOf(cfg load.Config) time.Duration {
	if cfg.Timeout == 0 {
		return load.DefaultTimeout
	}
	return cfg.Timeout
}

func writeTable(w io.Writer, cfg load.Config, rep loadresult.Result) error {
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
	if rep.Answered != rep.Scheduled {
		fmt.Fprintf(w, "the window's %d requests: %d answered, %d timed out (recorded at their time to the timeout), %d failed otherwise, %d unsent at its end (recorded at their lateness then)\n",
			rep.Scheduled, rep.Answered, rep.TimedOut, rep.Errors-rep.TimedOut, rep.Unsent)
	}
	// In closed loop each request is sent when it is due, so the corrected
	// and uncorrected latencies are one measure: one row, and no pacing.
	rows := []latencyRow{{"round trip", rep.Corrected}}
	if rep.Offered > 0 {
		rows = []latencyRow{{"corrected", rep.Corrected}, {"uncorrected", rep.Uncorrected}, {"pacing lag", rep.PacingLag}}
	}
	if rep.ReceiveLag.Max > 0 {
		rows = append(rows, latencyRow{"receive lag", rep.ReceiveLag})
	}
	if err := writeLatencies(w, "latency", rows...); err != nil {
		return err
	}
	if rep.Overflow > 0 {
		fmt.Fprintf(w, "%d latencies beyond the histograms' 60 s were recorded as 60 s\n", rep.Overflow)
	}
	return writeGeneratorLine(w, rep)
}

// writeGeneratorLine writes what the generator reports about itself: its CPU,
// per answered request, the spinning in it, and its connections' use.
func writeGeneratorLine(w io.Writer, rep loadresult.Result) error {
	fmt.Fprintf(w, "generator CPU: %.2f cores over %v, %v per answered request", rep.Cores(), rep.Wall.Round(time.Millisecond), sig3(rep.CPUPerRequest()))
	if rep.Spin > 0 {
		fmt.Fprintf(w, " (spinning left out: %v spent spinning)", sig3(rep.Spin))
	}
	if rep.Offered > 0 {
		fmt.Fprintf(w, "; paced by %s", load.PacingMethod)
	}
	_, err := fmt.Fprintf(w, "; connections busy %.2f of %d on average\n", rep.Concurrency(), rep.Conns)
	return err
}

type latencyRow struct {
	name string
	l    loadresult.Latencies
}

// writeLatencies writes percentile rows as a table headed title.
func writeLatencies(w io.Writer, title string, rows ...latencyRow) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "%s\t%s\t\n", title, strings.Join(loadresult.PercentileNames(), "\t"))
	for _, r := range rows {
		fmt.Fprintf(tw, "%s\t", r.name)
		for _, v := range r.l.Values() {
			fmt.Fprintf(tw, "%v\t", sig3(v))
		}
		fmt.Fprintln(tw)
	}
	return tw.Flush()
}

// sig3 rounds d to three significant digits, the histograms' precision.
func sig3(d time.Duration) time.Duration {
	if d < 1000 {
		return d
	}
	unit := time.Duration(math.Pow10(int(math.Floor(math.Log10(float64(d)))) - 2))
	return d.Round(unit)
}

// writeRunsSummary describes -count runs together: the spread of a few
// runs' achieved rates and p99s, with montanaflynn/stats (a handful of
// values, summarized once: what it is for; percentiles within a run come
// from the HDR histograms).
func writeRunsSummary(w io.Writer, reps []loadresult.Result) {
	var rates, p99s []float64
	for _, r := range reps {
		rates = append(rates, r.Achieved)
		p99s = append(p99s, float64(r.Corrected.P99))
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
	fmt.Fprintf(w, "\nover %d runs: %.0f req/s median (%.0f to %.0f, sd %.1f%%), %s %v median (%v to %v)\n",
		len(reps), med, lo, hi, cv, p99Name(reps[0]), sig3(time.Duration(p99)), sig3(time.Duration(p99lo)), sig3(time.Duration(p99hi)))
}

// p99Name names a run's corrected p99: plain "p99" in closed loop, where
// corrected and uncorrected are one measure.
func p99Name(rep loadresult.Result) string {
	if rep.Offered > 0 {
		return "corrected p99"
	}
	return "p99"
}

// sloVerdict judges the runs against -slo, when it was given, as a
// sweep judges a step: the corrected p99 over the SLO fails the command.
// Within it, one line on stderr says so.
func sloVerdict(f loadFlags, reps []loadresult.Result, stderr io.Writer) error {
	if !f.sloSet || len(reps) == 0 {
		return nil
	}
	c := load.Criteria{SLO: f.slo}
	var worst time.Duration
	for i, rep := range reps {
		p99 := rep.Corrected.P99
		worst = max(worst, p99)
		if c.Judge(load.FiguresOf(rep, 0)).OverSLO {
			which := ""
			if len(reps) > 1 {
				which = fmt.Sprintf("run %d of %d: ", i+1, len(reps))
			}
			return fmt.Errorf("%s%s %v is over -slo %v", which, p99Name(rep), sig3(p99), f.slo)
		}
	}
	if len(reps) > 1 {
		fmt.Fprintf(stderr, "loopbench load: %s within -slo %v in each of %d runs (at most %v)\n", p99Name(reps[0]), f.slo, len(reps), sig3(worst))
		return nil
	}
	fmt.Fprintf(stderr, "loopbench load: %s %v within -slo %v\n", p99Name(reps[0]), sig3(worst), f.slo)
	return nil
}
