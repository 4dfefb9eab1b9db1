package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/loopbench/loopbench/internal/harness/load"
	"github.com/loopbench/loopbench/internal/harness/loadresult"
	"github.com/loopbench/loopbench/internal/harness/report"
	"golang.org/x/perf/benchfmt"
)

// runSweep runs load -sweep and writes its outputs.
func runSweep(f loadFlags, outs *loadOutputs, stdout, stderr io.Writer) error {
	ctx, stop := interruptContext(measuring)
	defer stop()
	sc := f.sweepConfig()
	if !sc.StartAt.IsZero() {
		fmt.Fprintf(stderr, "loopbench load: step k starts at %s + k × %v\n", sc.StartAt.Format(time.RFC3339Nano), load.StepPeriod(f.cfg))
	}
	sw, err := load.RunSweep(ctx, sc, func(s load.Step) {
		r := s.Result
		fmt.Fprintf(stderr, "step %d of %d: %.0f req/s offered, %.0f achieved, p99 %v, pacing lag p99 %v, receive lag p99 %v, %v CPU per request, connections busy %.2f of %d, %.2f cores: %v\n",
			s.Index+1, len(f.rates), r.Offered, r.Achieved, loadresult.Sig3(r.Corrected.P99), loadresult.Sig3(r.PacingLag.P99), loadresult.Sig3(r.ReceiveLag.P99), loadresult.Sig3(r.CPUPerRequest()), r.Concurrency(), r.Conns, r.Cores(), s.Verdict)
		if s.Remeasured {
			fmt.Fprintf(stderr, "loopbench load: step %d was measured again: the generator was late in the first measurement\n", s.Index+1)
		}
		if s.StartedLate > 10*time.Millisecond {
			fmt.Fprintf(stderr, "loopbench load: warning: step %d started %v after its slot (the previous step overran): its window no longer lines up with other generators'\n", s.Index+1, loadresult.Sig3(s.StartedLate))
		}
	})
	if len(sw.Steps) > 0 {
		if werr := writeSweepOutputs(f, outs, sw, stdout, stderr); werr != nil {
			return werr
		}
	}
	if err != nil {
		return tlsFailure(f, err)
	}
	return sweepVerdict(f, sw)
}

func (f loadFlags) sweepConfig() load.SweepConfig {
	sc := load.SweepConfig{Run: f.cfg, Rates: f.rates, Criteria: f.criteria(), CPUs: generatorCPUs(), StartAt: f.cfg.StartAt}
	sc.Run.StartAt = time.Time{}
	return sc
}

func (f loadFlags) criteria() load.Criteria { return load.Criteria{SLO: f.slo, MaxErrors: f.maxErr} }

func sweepVerdict(f loadFlags, sw load.Sweep) error {
	switch {
	case sw.Interrupted && len(sw.Steps) == 0:
		return fmt.Errorf("interrupted in step 1 of %d: nothing measured", len(f.rates))
	case sw.Interrupted:
		return fmt.Errorf("interrupted in step %d of %d, which is left out: the output covers the steps before", len(sw.Steps)+1, len(f.rates))
	case sw.Steps[0].Result.Requests == 0:
		return fmt.Errorf("no request completed in the first step %s", errorsWhy(sw.Steps[0].Result))
	}
	return nil
}

func writeSweepOutputs(f loadFlags, outs *loadOutputs, sw load.Sweep, stdout, stderr io.Writer) error {
	writeTLSLine(f, stdout, stderr) // its steps made their handshakes
	err := byFormat(f.format, func() error { return writeSweepJSON(stdout, f, sw) },
		func() error { return writeSweepBenchfmt(stdout, f, sw) }, func() error { return writeSweepTable(stdout, f.cfg, f.criteria(), sw) })
	if err != nil {
		return err
	}
	if f.out != "" {
		var rs []loadresult.Result
		for _, s := range sw.Steps {
			rs = append(rs, f.named(s.Result).AsStep(s.Index, f.slo, f.maxErr))
		}
		if err := outs.write(stdout, rs); err != nil {
			return err
		}
	}
	if f.reportDir == "" {
		return nil
	}
	title := fmt.Sprintf("%s: %d conns, %d bytes", f.cfg.Label, f.cfg.Conns, f.cfg.Size)
	svg, err := report.SweepFigure(title, sweepSeries(f.cfg.Label, sw.Steps, sw.Knee), f.slo)
	if err != nil {
		return fmt.Errorf("-report: %w", err)
	}
	path := filepath.Join(f.reportDir, "sweep.svg")
	if err := os.WriteFile(path, svg, 0o644); err != nil {
		return err
	}
	fmt.Fprintf(stderr, "report: %s\n", path)
	rs := make([]loadresult.Result, len(sw.Steps))
	for i, s := range sw.Steps {
		rs[i] = s.Result.AsStep(s.Index, f.slo, f.maxErr)
	}
	return writeSeriesFigure(filepath.Join(f.reportDir, "series.svg"), rs, stderr)
}

// sweepSeries is a sweep as the report's plots draw it.
func sweepSeries(name string, steps []load.Step, k load.Knee) report.SweepSeries {
	s := report.SweepSeries{Name: name, Knee: k.Rate, LowerBound: k.LowerBound, KneeNote: k.Note}
	for _, st := range steps {
		s.Points = append(s.Points, report.SweepPoint{Offered: st.Result.Offered, Latency: st.Result.Corrected})
	}
	return s
}

// writeSweepTable writes one row per step and the knee.
func writeSweepTable(w io.Writer, cfg load.Config, c load.Criteria, sw load.Sweep) error {
	fmt.Fprintf(w, "%s: %s over %s of %d bytes, each %v after %v of warmup; SLO: corrected p99 within %v, errors within %.3g%%\n",
		cfg.Label, loadresult.Plural(len(sw.Steps), "step"), loadresult.Plural(cfg.Conns, "connection"), cfg.Size, cfg.Duration, cfg.Warmup, c.SLO, 100*c.MaxErrors)
	var rows []sweepRow
	for _, s := range sw.Steps {
		rows = append(rows, sweepRow{s.Result, s.Result.Cores(), s.Verdict.String()})
	}
	if err := writeSweepRows(w, "cores", rows); err != nil {
		return err
	}
	fmt.Fprintf(w, "latencies corrected (from the intended send); u.: uncorrected (from the actual send); lag: the generator's pacing lag; paced by %s\n", load.PacingMethod)
	if sw.Stop != "" {
		fmt.Fprintf(w, "stopped: %s\n", sw.Stop)
	}
	_, err := fmt.Fprintln(w, sw.Knee)
	return err
}

// sweepRow is a step in a sweep's table.
type sweepRow struct {
	rep     loadresult.Result
	cores   float64
	verdict string
}

// writeSweepRows writes a sweep's table, the cores column headed cores:
// every percentile of the corrected latency, then of the uncorrected
// (u.).
func writeSweepRows(w io.Writer, cores string, rows []sweepRow) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	names := loadresult.PercentileNames()
	fmt.Fprintf(tw, "offered\tachieved\t%s\tu.%s\terrors\tunsent\t%s\tlag p99\t\tverdict\n", strings.Join(names, "\t"), strings.Join(names, "\tu."), cores)
	for _, row := range rows {
		r := row.rep
		fmt.Fprintf(tw, "%.0f\t%.0f\t", r.Offered, r.Achieved)
		for _, v := range append(r.Corrected.Values(), r.Uncorrected.Values()...) {
			fmt.Fprintf(tw, "%v\t", loadresult.Sig3(v))
		}
		fmt.Fprintf(tw, "%d\t%d\t%.2f\t%v\t\t%s\n", r.Errors, r.Unsent, row.cores, loadresult.Sig3(r.PacingLag.P99), row.verdict)
	}
	return tw.Flush()
}

// sweepJSON is a sweep in load's JSON output.
type sweepJSON struct {
	SLONS     int64           `json:"slo_ns"`
	MaxErrors float64         `json:"max_errors"`
	StartAt   *time.Time      `json:"start_at,omitempty"`
	PeriodNS  int64           `json:"step_period_ns,omitempty"`
	Stop      string          `json:"stopped,omitempty"`
	Knee      kneeJSON        `json:"knee"`
	Steps     []sweepStepJSON `json:"steps"`
}

type kneeJSON struct {
	RateRPS    float64 `json:"rate_rps"`
	LowerBound bool    `json:"lower_bound"`
	Note       string  `json:"note,omitempty"`
}

type sweepStepJSON struct {
	Step       int    `json:"step"`
	Verdict    string `json:"verdict"`
	Remeasured bool   `json:"remeasured,omitempty"` // the generator was late in a first measurement
	loadresult.JSON
}

func writeSweepJSON(w io.Writer, f loadFlags, sw load.Sweep) error {
	out := newLoadJSON(f.cfg)
	out.RateRPS = 0
	js := &sweepJSON{SLONS: int64(f.slo), MaxErrors: f.maxErr, Stop: sw.Stop, Knee: kneeJSON{sw.Knee.Rate, sw.Knee.LowerBound, sw.Knee.Note}}
	if !f.cfg.StartAt.IsZero() {
		at := f.cfg.StartAt.UTC()
		js.StartAt, js.PeriodNS = &at, int64(load.StepPeriod(f.cfg))
	}
	for _, s := range sw.Steps {
		js.Steps = append(js.Steps, sweepStepJSON{s.Index + 1, s.Verdict.String(), s.Remeasured, s.Result.JSON()})
	}
	out.Sweep = js
	return writeJSON(w, out)
}

// writeSweepBenchfmt writes one benchmark line per step (the /rate= key
// tells them apart) and the knee as BenchmarkLoadKnee, its note as the
// "knee" configuration.
func writeSweepBenchfmt(w io.Writer, f loadFlags, sw load.Sweep) error {
	bw := benchfmt.NewWriter(w)
	if err := loadresult.WriteUnits(bw, ownSweepUnits); err != nil {
		return err
	}
	return writeSweepResults(bw, f.cfg, f.slo, sw, fileConfig())
}

// writeSweepResults writes a line per step and the knee line, under the
// configuration base.
func writeSweepResults(bw *benchfmt.Writer, cfg load.Config, slo time.Duration, sw load.Sweep, base []benchfmt.Config) error {
	for _, s := range sw.Steps {
		res := &benchfmt.Result{Config: base, Name: benchName(cfg, s.Result.Offered), Iters: int(max(s.Result.Requests, 1)), Values: s.Result.GeneratorValues()}
		if err := bw.Write(res); err != nil {
			return err
		}
	}
	name := fmt.Sprintf("LoadKnee/label=%s/size=%d/conns=%d/slo=%v", nameSegment(cfg.Label), cfg.Size, cfg.Conns, slo)
	knee := append(append([]benchfmt.Config(nil), base...), configOf(sw.Knee.Config()...)...)
	return bw.Write(&benchfmt.Result{Config: knee, Name: benchfmt.Name(name), Iters: 1, Values: []benchfmt.Value{{Value: sw.Knee.Rate, Unit: "knee-req/s"}}})
}

// sweepUnits are a sweep's units: load's and the knee's.
var sweepUnits = append(append([]loadresult.Unit(nil), loadresult.Units...), loadresult.Unit{Name: "knee-req/s", Better: "higher"})

// ownSweepUnits are a generator's own sweep's units: sweepUnits and what
// it reports about itself.
var ownSweepUnits = append(append([]loadresult.Unit(nil), sweepUnits...), loadresult.GeneratorUnits...)
