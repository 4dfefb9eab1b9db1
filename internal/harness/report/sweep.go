package report

import (
	"errors"
	"fmt"
	"image/color"
	"strings"
	"time"

	"github.com/loopbench/loopbench/internal/measure/loadresult"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// SweepPercentiles name the latencies of a SweepPoint, in order: load's
// percentiles (loadresult.Percentiles).
var SweepPercentiles = loadresult.PercentileNames()

// SweepPoint is one step of a load sweep.
type SweepPoint struct {
	Offered float64
	Latency loadresult.Latencies // corrected
}

// SweepSeries is one server's sweep and its knee.
type SweepSeries struct {
	Name   string
	Points []SweepPoint
	Knee   float64 // the knee's offered rate; 0 when there is none
	// LowerBound marks a knee the server may pass; KneeNote says why, or
	// why there is no knee.
	LowerBound bool
	KneeNote   string
	// Ceiling is the offered rate from which the generator was
	// CPU-bound (0: never), LeftOut the steps below it that it limited
	// otherwise and the knee left out (load.Knee's).
	Ceiling float64
	LeftOut int
}

// PercentileIndex returns the index of a percentile name in
// SweepPercentiles, or -1.
func PercentileIndex(name string) int {
	for i, p := range SweepPercentiles {
		if p == name {
			return i
		}
	}
	return -1
}

// SweepFigure draws one sweep: corrected latency against the offered
// rate, both axes logarithmic, one line per percentile, the SLO as a
// dashed horizontal line and the knee as a vertical one.
func SweepFigure(title string, s SweepSeries, slo time.Duration) ([]byte, error) {
	p := sweepPlot([]SweepSeries{s})
	var legend []legendEntry
	var rx, ry span
	for j, name := range SweepPercentiles {
		if err := addSweepLine(p, &legend, name, s, j, j, &rx, &ry); err != nil {
			return nil, err
		}
	}
	if len(legend) == 0 {
		return nil, errors.New("no step recorded a latency")
	}
	legend = append(legend, markers(p, []SweepSeries{s}, slo, rx, ry)...)
	return tile([]*plot.Plot{p}, title, legend, 3.8*vg.Inch)
}

// SweepCompare draws several sweeps at one percentile (an index into
// SweepPercentiles): one line per server, each knee marked on its line.
func SweepCompare(title string, series []SweepSeries, pct int, slo time.Duration) ([]byte, error) {
	if pct < 0 || pct >= len(SweepPercentiles) {
		return nil, fmt.Errorf("no percentile %d", pct)
	}
	p := sweepPlot(series)
	p.Y.Label.Text = "corrected " + SweepPercentiles[pct] + " (ms)"
	var legend []legendEntry
	var rx, ry span
	for i, s := range series {
		if err := addSweepLine(p, &legend, s.Name+kneeLabel(s), s, pct, i, &rx, &ry); err != nil {
			return nil, err
		}
		if k, ok := kneePoint(s, pct); ok {
			mark, err := plotter.NewScatter(plotter.XYs{k})
			if err != nil {
				return nil, err
			}
			mark.Shape, mark.Color, mark.Radius = draw.RingGlyph{}, plotutil.Color(i), vg.Points(7)
			p.Add(mark)
		}
	}
	if len(legend) == 0 {
		return nil, errors.New("no sweep recorded a latency")
	}
	legend = append(legend, markers(p, nil, slo, rx, ry)...)
	return tile([]*plot.Plot{p}, title, legend, 3.8*vg.Inch)
}

func sweepPlot(series []SweepSeries) *plot.Plot {
	p := plot.New()
	p.X.Label.Text = "offered rate (req/s)"
	p.Y.Label.Text = "corrected latency (ms)"
	p.X.Scale, p.Y.Scale = plot.LogScale{}, plot.LogScale{}
	p.X.Tick.Marker, p.Y.Tick.Marker = rateTicks(series), compactLogTicks{}
	return p
}

// rateTicks labels the offered rates of the steps when they are few,
// else the log axis's usual ticks.
func rateTicks(series []SweepSeries) plot.Ticker {
	seen := map[float64]bool{}
	var ticks []plot.Tick
	for _, s := range series {
		for _, pt := range s.Points {
			if !seen[pt.Offered] {
				seen[pt.Offered] = true
				ticks = append(ticks, plot.Tick{Value: pt.Offered, Label: compact(pt.Offered)})
			}
		}
	}
	if len(ticks) == 0 || len(ticks) > 8 {
		return compactLogTicks{}
	}
	return plot.ConstantTicks(ticks)
}

// addSweepLine adds s's line at percentile j, in ms, in the k-th
// color and shape, and its legend entry, unless no step has it.
func addSweepLine(p *plot.Plot, legend *[]legendEntry, name string, s SweepSeries, j, k int, rx, ry *span) error {
	var pts plotter.XYs
	for _, pt := range s.Points {
		if y := ms(pt.Latency.At(j)); y > 0 && pt.Offered > 0 {
			pts = append(pts, plotter.XY{X: pt.Offered, Y: y})
			rx.add(pt.Offered)
			ry.add(y)
		}
	}
	if len(pts) == 0 {
		return nil
	}
	line, points, err := plotter.NewLinePoints(pts)
	if err != nil {
		return err
	}
	line.Color, points.Color = plotutil.Color(k), plotutil.Color(k)
	line.Width = vg.Points(1.5)
	points.Shape = plotutil.Shape(k)
	p.Add(line, points)
	*legend = append(*legend, legendEntry{name, []plot.Thumbnailer{line, points}})
	return nil
}

// markers sets the axes' bounds and draws the SLO, and the knees of
// series, as dashed lines; it returns their legend entries.
func markers(p *plot.Plot, series []SweepSeries, slo time.Duration, rx, ry span) []legendEntry {
	if slo > 0 {
		ry.add(ms(slo))
	}
	p.X.Min, p.X.Max = rx.padded(1.2)
	p.Y.Min, p.Y.Max = ry.padded(1.5)
	var out []legendEntry
	dashed := func(a, b plotter.XY, c color.Color) *plotter.Line {
		l, _ := plotter.NewLine(plotter.XYs{a, b})
		l.Color, l.Dashes, l.Width = c, []vg.Length{vg.Points(5), vg.Points(3)}, vg.Points(1.2)
		p.Add(l)
		return l
	}
	if slo > 0 {
		l := dashed(plotter.XY{X: p.X.Min, Y: ms(slo)}, plotter.XY{X: p.X.Max, Y: ms(slo)}, color.RGBA{200, 0, 0, 255})
		out = append(out, legendEntry{fmt.Sprintf("SLO %v", slo), []plot.Thumbnailer{l}})
	}
	for _, s := range series {
		if s.Knee > 0 {
			l := dashed(plotter.XY{X: s.Knee, Y: p.Y.Min}, plotter.XY{X: s.Knee, Y: p.Y.Max}, color.Gray{Y: 90})
			out = append(out, legendEntry{"knee" + kneeLabel(s), []plot.Thumbnailer{l}})
		}
	}
	return out
}

// kneePoint is s's knee on its line at percentile j.
func kneePoint(s SweepSeries, j int) (plotter.XY, bool) {
	for _, pt := range s.Points {
		if pt.Offered == s.Knee && s.Knee > 0 && pt.Latency.At(j) > 0 {
			return plotter.XY{X: pt.Offered, Y: ms(pt.Latency.At(j))}, true
		}
	}
	return plotter.XY{}, false
}

// kneeLabel is ": knee R req/s" (at least R for a lower bound), or
// ": no knee".
func kneeLabel(s SweepSeries) string {
	switch {
	case s.Knee <= 0:
		return ": no knee"
	case s.LowerBound:
		return fmt.Sprintf(": ≥ %s req/s", compact(s.Knee))
	}
	return fmt.Sprintf(": %s req/s", compact(s.Knee))
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// KneeTable is the knees of several sweeps as a Markdown table.
func KneeTable(series []SweepSeries, slo time.Duration) string {
	var b strings.Builder
	fmt.Fprintf(&b, "| server | knee (req/s, corrected p99 ≤ %v) | note |\n|---|---|---|\n", slo)
	for _, s := range series {
		knee := "—"
		switch {
		case s.Knee > 0 && s.LowerBound:
			knee = fmt.Sprintf("≥ %.0f", s.Knee)
		case s.Knee > 0:
			knee = fmt.Sprintf("%.0f", s.Knee)
		}
		fmt.Fprintf(&b, "| %s | %s | %s |\n", s.Name, knee, s.KneeNote)
	}
	return b.String()
}
