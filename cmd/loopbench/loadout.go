package main

import (
	"fmt"
	"io"
	"os"

	"github.com/loopbench/loopbench/internal/harness/load"
	"github.com/loopbench/loopbench/internal/harness/loadresult"
	"github.com/loopbench/loopbench/internal/harness/report"
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
	return load.Output{Format: f.format, Config: f.cfg, Base: machineConfig(), CPUs: generatorCPUs(), TLSLine: f.tlsLine}
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

// splitLoadFiles sorts report's inputs into load result files, read,
// and the others (report.SplitLoadFiles); its errors are usage errors.
func splitLoadFiles(files []string) ([][]loadresult.Result, []string, error) {
	loads, rest, err := report.SplitLoadFiles(files)
	if err != nil {
		return nil, nil, usageError{err.Error()}
	}
	return loads, rest, nil
}

// writeLoadSeries draws each load result file's series into dir.
func writeLoadSeries(dir string, loads [][]loadresult.Result, stderr io.Writer) error {
	return report.WriteLoadSeries(dir, loads, stderr)
}

// firstError is ", the most frequent Nx TEXT" of a run's errors.
func firstError(rep loadresult.Result) string { return load.FirstError(rep) }
