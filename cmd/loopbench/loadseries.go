package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/loopbench/loopbench/internal/harness/loadresult"
	"github.com/loopbench/loopbench/internal/harness/report"
)

// writeLoadReport draws the runs into -report's directory, if given:
// their latency spectrum (latency.svg) and series (series.svg).
func writeLoadReport(f loadFlags, reps []loadresult.Result, stderr io.Writer) error {
	if f.reportDir == "" {
		return nil
	}
	if err := writeSpectrum(f.reportDir, f.cfg, reps); err != nil {
		return err
	}
	fmt.Fprintf(stderr, "report: %s\n", filepath.Join(f.reportDir, "latency.svg"))
	if err := writeSeriesFigure(filepath.Join(f.reportDir, "series.svg"), reps, stderr); err != nil {
		return fmt.Errorf("-report: %w", err)
	}
	return nil
}

// seriesRuns are results as SeriesFigure draws them, a row each: a
// sweep's steps by their index and offered rate, runs by their number
// when there are several.
func seriesRuns(rs []loadresult.Result) []report.SeriesRun {
	runs := make([]report.SeriesRun, len(rs))
	for i, r := range rs {
		title := rateName(r.Offered)
		switch {
		case r.Step != nil:
			title = fmt.Sprintf("step %d, %s", *r.Step+1, title)
		case len(rs) > 1:
			title = fmt.Sprintf("run %d, %s", i+1, title)
		}
		runs[i] = report.SeriesRun{Title: title, Series: r.Series}
	}
	return runs
}

// writeSeriesFigure draws the results' series over time to path and
// says where on stderr.
func writeSeriesFigure(path string, rs []loadresult.Result, stderr io.Writer) error {
	first := rs[0]
	title := fmt.Sprintf("%s over time: %d conns, %d bytes", first.Label, first.Conns, first.Size)
	if first.Name != "" {
		title = first.Name + ": " + title
	}
	svg, err := report.SeriesFigure(title, seriesRuns(rs))
	if err != nil {
		return err
	}
	if err := os.WriteFile(path, svg, 0o644); err != nil {
		return err
	}
	fmt.Fprintf(stderr, "report: %s\n", path)
	return nil
}

// splitLoadFiles sorts report's inputs into load result files (load
// -out, merge's inputs), read, and the others. A load file that does
// not read is a usage error naming it.
func splitLoadFiles(files []string) (loads [][]loadresult.Result, rest []string, err error) {
	for _, name := range files {
		f, err := os.Open(name)
		if err != nil {
			return nil, nil, usageError{err.Error()}
		}
		rs, err := loadresult.Read(name, f)
		f.Close()
		switch {
		case errors.Is(err, loadresult.ErrNoResult):
			rest = append(rest, name)
		case err != nil:
			return nil, nil, usageError{err.Error()}
		default:
			loads = append(loads, rs)
		}
	}
	return loads, rest, nil
}

// writeLoadSeries draws each load result file's series into dir:
// series.svg for one file, series-<n>.svg for several.
func writeLoadSeries(dir string, loads [][]loadresult.Result, stderr io.Writer) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for i, rs := range loads {
		name := "series.svg"
		if len(loads) > 1 {
			name = fmt.Sprintf("series-%d.svg", i+1)
		}
		if err := writeSeriesFigure(filepath.Join(dir, name), rs, stderr); err != nil {
			return fmt.Errorf("%s: %w", rs[0].Name, err)
		}
	}
	return nil
}
