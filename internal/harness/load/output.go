package load

import (
	"fmt"
	"io"
	"time"

	"github.com/loopbench/loopbench/internal/measure/loadresult"
	"golang.org/x/perf/benchfmt"
)

// Output is how `loopbench load` writes its runs or its sweep: the
// format, the configuration they ran with, the file configuration of
// benchfmt lines (the machine's) and the generator's usable CPUs (a
// benchmark name's -N).
type Output struct {
	Format string // "table", "benchfmt" or "json"
	Config Config
	Base   [][2]string
	CPUs   int
	// TLSLine says how a TLS run connected (TLSOptions.Apply); "" for
	// none.
	TLSLine string
}

// WriteTLSLine states how a TLS run connected, ahead of its results,
// once a handshake (verified, unless Insecure) succeeded: on stdout (a
// configuration line in benchfmt), or on stderr for JSON.
func (o Output) WriteTLSLine(stdout, stderr io.Writer) {
	if o.TLSLine == "" {
		return
	}
	if o.Format == "json" {
		stdout = stderr
	}
	fmt.Fprintln(stdout, o.TLSLine)
}

// OwnUnits are the units of a generator's own benchmark lines: Units and
// GeneratorUnits.
var OwnUnits = append(append([]loadresult.Unit(nil), loadresult.Units...), loadresult.GeneratorUnits...)

// WriteRuns writes the runs in the output's format: a table each (and
// their spread), a JSON document, or a benchmark line each.
func (o Output) WriteRuns(w io.Writer, reps []loadresult.Result) error {
	switch o.Format {
	case "json":
		out := newRunJSON(o.Config)
		for _, rep := range reps {
			out.Runs = append(out.Runs, rep.JSON())
		}
		return loadresult.WriteJSON(w, out)
	case "benchfmt":
		return o.writeRunsBenchfmt(w, reps)
	}
	return loadresult.WriteTables(w, reps)
}

// writeRunsBenchfmt writes the runs as benchmark results, one line each,
// after the unit metadata benchstat needs; an interrupted run carries an
// "interrupted" configuration line.
func (o Output) writeRunsBenchfmt(w io.Writer, reps []loadresult.Result) error {
	bw := benchfmt.NewWriter(w)
	if err := loadresult.WriteUnits(bw, OwnUnits); err != nil {
		return err
	}
	for _, rep := range reps {
		kvs := o.Base
		if rep.Interrupted {
			kvs = append(append([][2]string(nil), o.Base...), [2]string{"interrupted", fmt.Sprintf("after %v of %v", rep.Elapsed.Round(time.Millisecond), rep.Duration)})
		}
		res := &benchfmt.Result{Config: loadresult.ConfigOf(kvs...), Name: o.benchName(rep.Offered), Iters: int(max(rep.Requests, 1)), Values: rep.GeneratorValues()}
		if err := bw.Write(res); err != nil {
			return err
		}
	}
	return nil
}

// benchName is a run's benchmark name at rate (loadresult.BenchName).
func (o Output) benchName(rate float64) benchfmt.Name {
	return loadresult.BenchName(o.Config.Label, o.Config.Size, o.Config.Conns, rate, o.CPUs)
}

// runJSON is load's JSON output: the configuration and one entry per
// run, or the sweep.
type runJSON struct {
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

func newRunJSON(cfg Config) runJSON {
	return runJSON{Label: cfg.Label, Addr: cfg.Addr, Conns: cfg.Conns, SizeBytes: cfg.Size, RateRPS: cfg.Rate,
		DurationNS: int64(cfg.Duration), WarmupNS: int64(cfg.Warmup), TimeoutNS: int64(cfg.withDefaults().Timeout), PacingMethod: PacingMethod}
}
