package main

import (
	"fmt"
	"io"
	"time"

	"github.com/loopbench/loopbench/internal/harness/load"
	"github.com/loopbench/loopbench/internal/harness/report"
	"github.com/loopbench/loopbench/internal/measure/loadresult"
)

// runSweep runs load -sweep and writes its outputs.
func runSweep(f loadFlags, out *loadresult.OutFile, stdout, stderr io.Writer) error {
	ctx, stop := interruptContext(measuring)
	defer stop()
	sc := load.SweepConfig{Run: f.cfg, Rates: f.rates, Criteria: f.criteria(), CPUs: load.UsableCPUs(), StartAt: f.cfg.StartAt}
	sc.Run.StartAt = time.Time{}
	if !sc.StartAt.IsZero() {
		fmt.Fprintf(stderr, "loopbench load: step k starts at %s + k × %v\n", sc.StartAt.Format(time.RFC3339Nano), load.StepPeriod(f.cfg))
	}
	sw, err := load.RunSweep(ctx, sc, func(s load.Step) { load.WriteStepLines(stderr, s, len(f.rates)) })
	if len(sw.Steps) > 0 {
		if werr := writeSweepOutputs(f, out, sw, stdout, stderr); werr != nil {
			return werr
		}
	}
	if err != nil {
		return load.TLSFailure(f.cfg, err)
	}
	return load.CheckSweep(sw, len(f.rates))
}

func (f loadFlags) criteria() load.Criteria { return load.Criteria{SLO: f.slo, MaxErrors: f.maxErr} }

func writeSweepOutputs(f loadFlags, out *loadresult.OutFile, sw load.Sweep, stdout, stderr io.Writer) error {
	o := f.output()
	o.WriteTLSLine(stdout, stderr) // its steps made their handshakes
	if err := o.WriteSweep(stdout, f.criteria(), sw); err != nil {
		return err
	}
	if f.out != "" {
		rs := sw.StepResults(f.criteria())
		for i := range rs {
			rs[i] = f.named(rs[i])
		}
		if err := out.Write(stdout, rs); err != nil {
			return err
		}
	}
	if f.reportDir == "" {
		return nil
	}
	title := fmt.Sprintf("%s: %d conns, %d bytes", f.cfg.Label, f.cfg.Conns, f.cfg.Size)
	s := report.SweepSeriesOf(f.cfg.Label, sw.Steps, sw.Knee)
	if err := report.WriteSweepFigures(f.reportDir, title, s, f.slo, sw.StepResults(f.criteria()), stderr); err != nil {
		return fmt.Errorf("-report: %w", err)
	}
	return nil
}
