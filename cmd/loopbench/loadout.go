package main

import (
	"fmt"
	"io"
	"os"

	"github.com/loopbench/loopbench/internal/harness/load"
	"github.com/loopbench/loopbench/internal/harness/report"
	"github.com/loopbench/loopbench/internal/measure/loadresult"
	"github.com/loopbench/loopbench/internal/measure/machine"
)

// openOutputs checks -out, -report and -hgrm before anything is
// measured: a path that cannot be written is a usage error then, not a
// lost measurement at the end. It returns -out's file.
func openOutputs(f loadFlags) (*loadresult.OutFile, error) {
	out, err := loadresult.CreateOut(f.out)
	if err != nil {
		return nil, usageError{err.Error()}
	}
	if f.reportDir != "" {
		if err := loadresult.CheckDir(f.reportDir); err != nil {
			out.Abandon()
			return nil, usageError{fmt.Sprintf("-report %s: %v", f.reportDir, loadresult.PathError(err))}
		}
	}
	if f.hgrm != "" {
		if err := os.WriteFile(f.hgrm, nil, 0o644); err != nil {
			out.Abandon()
			return nil, usageError{fmt.Sprintf("-hgrm: %v", err)}
		}
	}
	return out, nil
}

// output is how the runs or the sweep are written.
func (f loadFlags) output() load.Output {
	return load.Output{Format: f.format, Config: f.cfg, Base: machine.RunConfig(), CPUs: load.UsableCPUs(), TLSLine: f.tlsLine}
}

// writeLoad writes the runs in -format, after the TLS line (the runs
// made their handshakes).
func writeLoad(w, stderr io.Writer, f loadFlags, reps []loadresult.Result) error {
	o := f.output()
	o.WriteTLSLine(w, stderr)
	return o.WriteRuns(w, reps)
}

// writeLoadFiles draws the runs into -report's directory, if given
// (latency.svg, series.svg), and writes -hgrm, if given.
func writeLoadFiles(f loadFlags, reps []loadresult.Result, stderr io.Writer) error {
	if f.reportDir != "" {
		c := f.cfg
		title := fmt.Sprintf("%s: %d conns, %d bytes, %s", c.Label, c.Conns, c.Size, loadresult.RateName(c.Rate))
		if err := report.WriteRunFigures(f.reportDir, title, c.Rate > 0, reps, stderr); err != nil {
			return fmt.Errorf("-report: %w", err)
		}
	}
	return loadresult.WriteHgrmFile(stderr, f.hgrm, reps)
}
