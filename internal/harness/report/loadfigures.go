package report

import (
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"
	"github.com/loopbench/loopbench/internal/measure/loadresult"
)

// LoadSpectrum draws load runs' corrected and uncorrected latency as a
// percentile spectrum, from their merged histograms; in closed loop
// (openLoop false), where the two are one measure, one series.
func LoadSpectrum(title string, openLoop bool, reps []loadresult.Result) ([]byte, error) {
	type measure struct {
		name string
		h    func(loadresult.Result) *hdrhistogram.Histogram
	}
	measures := []measure{{"round trip", func(r loadresult.Result) *hdrhistogram.Histogram { return r.CorrectedHist }}}
	if openLoop {
		measures = []measure{
			{"corrected (from the intended send)", func(r loadresult.Result) *hdrhistogram.Histogram { return r.CorrectedHist }},
			{"uncorrected (from the actual send)", func(r loadresult.Result) *hdrhistogram.Histogram { return r.UncorrectedHist }},
		}
	}
	var series []SpectrumSeries
	for _, m := range measures {
		merged := loadresult.NewHistogram()
		for _, r := range reps {
			if h := m.h(r); h != nil {
				merged.Merge(h)
			}
		}
		series = append(series, SpectrumSeries{Name: m.name, Points: SpectrumPoints(merged)})
	}
	return Spectrum(title, series)
}

// SpectrumPoints reads a histogram (in ns) at quantiles spaced evenly on
// the spectrum's axis, ten a decade of 1/(1-q), up to what its count
// resolves.
func SpectrumPoints(h *hdrhistogram.Histogram) []SpectrumPoint {
	var pts []SpectrumPoint
	n := float64(h.TotalCount())
	for k := 0; ; k++ {
		x := math.Pow(10, float64(k)/10)
		if x > n {
			break
		}
		q := 1 - 1/x
		pts = append(pts, SpectrumPoint{Quantile: q, Latency: time.Duration(h.ValueAtQuantile(100 * q))})
	}
	return pts
}

// SeriesRuns are results as SeriesFigure draws them, a row each: a
// sweep's steps by their index and offered rate, runs by their number
// when there are several.
func SeriesRuns(rs []loadresult.Result) []SeriesRun {
	runs := make([]SeriesRun, len(rs))
	for i, r := range rs {
		title := loadresult.RateName(r.Offered)
		switch {
		case r.Step != nil:
			title = fmt.Sprintf("step %d, %s", *r.Step+1, title)
		case len(rs) > 1:
			title = fmt.Sprintf("run %d, %s", i+1, title)
		}
		runs[i] = SeriesRun{Title: title, Series: r.Series}
	}
	return runs
}

// WriteLoadSeriesFigure draws the results' series over time to path,
// titled by the first, and says where on stderr.
func WriteLoadSeriesFigure(path string, rs []loadresult.Result, stderr io.Writer) error {
	first := rs[0]
	title := fmt.Sprintf("%s over time: %d conns, %d bytes", first.Label, first.Conns, first.Size)
	if first.Name != "" {
		title = first.Name + ": " + title
	}
	svg, err := SeriesFigure(title, SeriesRuns(rs))
	if err != nil {
		return err
	}
	if err := os.WriteFile(path, svg, 0o644); err != nil {
		return err
	}
	fmt.Fprintf(stderr, "report: %s\n", path)
	return nil
}

// SplitLoadFiles sorts report's inputs into load result files (load
// -out, merge's inputs), read, and the others. The error names a file
// that cannot be opened, or a load file that does not read.
func SplitLoadFiles(files []string) (loads [][]loadresult.Result, rest []string, err error) {
	for _, name := range files {
		rs, err := loadresult.ReadFile(name)
		switch {
		case errors.Is(err, loadresult.ErrNoResult):
			rest = append(rest, name)
		case err != nil:
			return nil, nil, err
		default:
			loads = append(loads, rs)
		}
	}
	return loads, rest, nil
}

// WriteLoadSeries draws each load result file's series into dir:
// series.svg for one file, series-<n>.svg for several.
func WriteLoadSeries(dir string, loads [][]loadresult.Result, stderr io.Writer) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for i, rs := range loads {
		name := "series.svg"
		if len(loads) > 1 {
			name = fmt.Sprintf("series-%d.svg", i+1)
		}
		if err := WriteLoadSeriesFigure(filepath.Join(dir, name), rs, stderr); err != nil {
			return fmt.Errorf("%s: %w", rs[0].Name, err)
		}
	}
	return nil
}

// WriteRunFigures draws load runs into dir: their latency spectrum
// (latency.svg, LoadSpectrum, titled title) and their series over time
// (series.svg), and names each file on stderr.
func WriteRunFigures(dir, title string, openLoop bool, reps []loadresult.Result, stderr io.Writer) error {
	svg, err := LoadSpectrum(title, openLoop, reps)
	if err != nil {
		return err
	}
	path := filepath.Join(dir, "latency.svg")
	if err := os.WriteFile(path, svg, 0o644); err != nil {
		return err
	}
	fmt.Fprintf(stderr, "report: %s\n", path)
	return WriteLoadSeriesFigure(filepath.Join(dir, "series.svg"), reps, stderr)
}

// WriteSweepFigures draws a load sweep into dir: its latency against the
// offered rate (sweep.svg, titled title, the SLO marked) and its steps
// over time (series.svg, from steps: the sweep's step results), and
// names each file on stderr.
func WriteSweepFigures(dir, title string, s SweepSeries, slo time.Duration, steps []loadresult.Result, stderr io.Writer) error {
	svg, err := SweepFigure(title, s, slo)
	if err != nil {
		return err
	}
	path := filepath.Join(dir, "sweep.svg")
	if err := os.WriteFile(path, svg, 0o644); err != nil {
		return err
	}
	fmt.Fprintf(stderr, "report: %s\n", path)
	return WriteLoadSeriesFigure(filepath.Join(dir, "series.svg"), steps, stderr)
}
