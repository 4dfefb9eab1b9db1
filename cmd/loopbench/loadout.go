package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strconv"
	"time"

	"github.com/loopbench/loopbench/internal/harness/load"
	"github.com/loopbench/loopbench/internal/harness/loadresult"
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
	return benchfmt.Name(fmt.Sprintf("Load/label=%s/size=%d/conns=%d/rate=%s-%d", nameSegment(cfg.Label), cfg.Size, cfg.Conns, formatRate(rate), generatorCPUs()))
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
		len(reps), med, lo, hi, cv, p99Name(reps[0]), loadresult.Sig3(time.Duration(p99)), loadresult.Sig3(time.Duration(p99lo)), loadresult.Sig3(time.Duration(p99hi)))
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
// Within it, one line on stderr says so; without -slo, one line says the
// runs were not judged.
func sloVerdict(f loadFlags, reps []loadresult.Result, stderr io.Writer) error {
	if len(reps) == 0 {
		return nil
	}
	if !f.sloSet {
		fmt.Fprintf(stderr, "loopbench load: not judged against an SLO (give -slo to fail a %s over it)\n", p99Name(reps[0]))
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
			return fmt.Errorf("%s%s %v is over -slo %v", which, p99Name(rep), loadresult.Sig3(p99), f.slo)
		}
	}
	if len(reps) > 1 {
		fmt.Fprintf(stderr, "loopbench load: %s within -slo %v in each of %d runs (at most %v)\n", p99Name(reps[0]), f.slo, len(reps), loadresult.Sig3(worst))
		return nil
	}
	fmt.Fprintf(stderr, "loopbench load: %s %v within -slo %v\n", p99Name(reps[0]), loadresult.Sig3(worst), f.slo)
	return nil
}

// writeHgrm writes the runs' merged corrected histogram to path as an
// .hgrm, when path is set and a latency was recorded.
func writeHgrm(path string, reps []loadresult.Result, stderr io.Writer) error {
	if path == "" {
		return nil
	}
	h := loadresult.NewHistogram()
	for _, r := range reps {
		if r.CorrectedHist != nil {
			h.Merge(r.CorrectedHist)
		}
	}
	var buf bytes.Buffer
	if err := loadresult.WriteHgrm(&buf, h); err != nil {
		return fmt.Errorf("-hgrm %s: %v", path, err)
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		return fmt.Errorf("-hgrm: %v", err)
	}
	fmt.Fprintf(stderr, "hgrm: %s\n", path)
	return nil
}
