package load

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/loopbench/loopbench/internal/measure/loadresult"
	"golang.org/x/perf/benchfmt"
)

// SweepUnits are a sweep's units: loadresult.Units and the knee's.
var SweepUnits = append(append([]loadresult.Unit(nil), loadresult.Units...), loadresult.Unit{Name: "knee-req/s", Better: "higher"})

// OwnSweepUnits are a generator's own sweep's units: SweepUnits and what
// it reports about itself.
var OwnSweepUnits = append(append([]loadresult.Unit(nil), SweepUnits...), loadresult.GeneratorUnits...)

// WriteSweep writes the sweep in the output's format: a table of its
// steps and knee, a JSON document, or a benchmark line per step and the
// knee's. c are the criteria it was judged by.
func (o Output) WriteSweep(w io.Writer, c Criteria, sw Sweep) error {
	switch o.Format {
	case "json":
		return o.writeSweepJSON(w, c, sw)
	case "benchfmt":
		bw := benchfmt.NewWriter(w)
		if err := loadresult.WriteUnits(bw, OwnSweepUnits); err != nil {
			return err
		}
		return WriteSweepResults(bw, o.Config, o.CPUs, c.SLO, sw, loadresult.ConfigOf(o.Base...))
	}
	return o.writeSweepTable(w, c, sw)
}

// writeSweepTable writes one row per step and the knee.
func (o Output) writeSweepTable(w io.Writer, c Criteria, sw Sweep) error {
	cfg := o.Config
	fmt.Fprintf(w, "%s: %s over %s of %d bytes, each %v after %v of warmup; SLO: corrected p99 within %v, errors within %.3g%%\n",
		cfg.Label, loadresult.Plural(len(sw.Steps), "step"), loadresult.Plural(cfg.Conns, "connection"), cfg.Size, cfg.Duration, cfg.Warmup, c.SLO, 100*c.MaxErrors)
	var rows []SweepRow
	for _, s := range sw.Steps {
		rows = append(rows, SweepRow{s.Result, s.Result.Cores(), s.Verdict.String()})
	}
	if err := WriteSweepRows(w, "cores", rows); err != nil {
		return err
	}
	fmt.Fprintf(w, "latencies corrected (from the intended send); u.: uncorrected (from the actual send); lag: the generator's pacing lag; paced by %s\n", PacingMethod)
	if sw.Stop != "" {
		fmt.Fprintf(w, "stopped: %s\n", sw.Stop)
	}
	_, err := fmt.Fprintln(w, sw.Knee)
	return err
}

// SweepRow is a step in a sweep's table: its result, the cores column's
// figure and its verdict.
type SweepRow struct {
	Result  loadresult.Result
	Cores   float64
	Verdict string
}

// WriteSweepRows writes a sweep's table, the cores column headed cores:
// every percentile of the corrected latency, then of the uncorrected
// (u.).
func WriteSweepRows(w io.Writer, cores string, rows []SweepRow) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	names := loadresult.PercentileNames()
	fmt.Fprintf(tw, "offered\tachieved\t%s\tu.%s\terrors\tunsent\t%s\tlag p99\t\tverdict\n", strings.Join(names, "\t"), strings.Join(names, "\tu."), cores)
	for _, row := range rows {
		r := row.Result
		fmt.Fprintf(tw, "%.0f\t%.0f\t", r.Offered, r.Achieved)
		for _, v := range append(r.Corrected.Values(), r.Uncorrected.Values()...) {
			fmt.Fprintf(tw, "%v\t", loadresult.Sig3(v))
		}
		fmt.Fprintf(tw, "%d\t%d\t%.2f\t%v\t\t%s\n", r.Errors, r.Unsent, row.Cores, loadresult.Sig3(r.PacingLag.P99), row.Verdict)
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

// kneeJSON is a knee in JSON.
type kneeJSON struct {
	RateRPS    float64 `json:"rate_rps"`
	LowerBound bool    `json:"lower_bound"`
	Note       string  `json:"note,omitempty"`
}

func (k Knee) json() kneeJSON { return kneeJSON{k.Rate, k.LowerBound, k.Note} }

type sweepStepJSON struct {
	Step       int    `json:"step"`
	Verdict    string `json:"verdict"`
	Remeasured bool   `json:"remeasured,omitempty"` // the generator was late in a first measurement
	loadresult.JSON
}

func (o Output) writeSweepJSON(w io.Writer, c Criteria, sw Sweep) error {
	out := newRunJSON(o.Config)
	out.RateRPS = 0
	js := &sweepJSON{SLONS: int64(c.SLO), MaxErrors: c.MaxErrors, Stop: sw.Stop, Knee: sw.Knee.json()}
	if !o.Config.StartAt.IsZero() {
		at := o.Config.StartAt.UTC()
		js.StartAt, js.PeriodNS = &at, int64(StepPeriod(o.Config))
	}
	for _, s := range sw.Steps {
		js.Steps = append(js.Steps, sweepStepJSON{s.Index + 1, s.Verdict.String(), s.Remeasured, s.Result.JSON()})
	}
	out.Sweep = js
	return loadresult.WriteJSON(w, out)
}

// WriteSweepResults writes a benchmark line per step (the /rate= key
// tells them apart) and the knee as BenchmarkLoadKnee, its fields as
// configuration (Knee.Config), under the configuration base; cpus is a
// step name's -N.
func WriteSweepResults(bw *benchfmt.Writer, cfg Config, cpus int, slo time.Duration, sw Sweep, base []benchfmt.Config) error {
	for _, s := range sw.Steps {
		name := loadresult.BenchName(cfg.Label, cfg.Size, cfg.Conns, s.Result.Offered, cpus)
		res := &benchfmt.Result{Config: base, Name: name, Iters: int(max(s.Result.Requests, 1)), Values: s.Result.GeneratorValues()}
		if err := bw.Write(res); err != nil {
			return err
		}
	}
	name := fmt.Sprintf("LoadKnee/label=%s/size=%d/conns=%d/slo=%v", loadresult.NameSegment(cfg.Label), cfg.Size, cfg.Conns, slo)
	knee := append(append([]benchfmt.Config(nil), base...), loadresult.ConfigOf(sw.Knee.Config()...)...)
	return bw.Write(&benchfmt.Result{Config: knee, Name: benchfmt.Name(name), Iters: 1, Values: []benchfmt.Value{{Value: sw.Knee.Rate, Unit: "knee-req/s"}}})
}
