package report

import (
	"errors"
	"image/color"
	"slices"
	"time"

	"github.com/loopbench/loopbench/internal/measure/loadresult"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// SeriesRun is one load run over time: a run, or a step of a sweep.
type SeriesRun struct {
	Title  string
	Series *loadresult.Series
}

// seriesLatencies are the percentiles a series figure draws, with their
// colours: loadresult.Percentiles' p50, p99 and max.
var seriesLatencies = []struct {
	name   string
	colour int
	of     func(loadresult.Latencies) time.Duration
}{
	{"p50", 0, func(l loadresult.Latencies) time.Duration { return l.P50 }},
	{"p99", 1, func(l loadresult.Latencies) time.Duration { return l.P99 }},
	{"max", 2, func(l loadresult.Latencies) time.Duration { return l.Max }},
}

// errorColour marks the errors.
var errorColour = color.RGBA{R: 0xd6, G: 0x27, B: 0x28, A: 0xff}

// SeriesFigure draws load runs over time, one row per run (each step of
// a sweep): on the left its throughput (answered requests a second) and
// errors a second, each interval with errors marked by a cross; on the
// right its corrected latency p50, p99 and max, on a log axis, an
// interval without a latency left out. x is the time since the window's
// start, in seconds, at each interval's middle.
func SeriesFigure(title string, runs []SeriesRun) ([]byte, error) {
	var plots []*plot.Plot
	var legend []legendEntry
	for _, r := range runs {
		if r.Series == nil || len(r.Series.Points) == 0 {
			continue
		}
		rate, thumbs, err := throughputPlot(r)
		if err != nil {
			return nil, err
		}
		lat, latThumbs, err := latencyPlot(r)
		if err != nil {
			return nil, err
		}
		plots = append(plots, rate, lat)
		for _, e := range append(thumbs, latThumbs...) {
			if !slices.ContainsFunc(legend, func(l legendEntry) bool { return l.name == e.name }) {
				legend = append(legend, e)
			}
		}
	}
	if len(plots) == 0 {
		return nil, errors.New("no run has a per-interval series")
	}
	svg, err := tile(plots, title, legend, 2.8*vg.Inch)
	return fontFallback(svg), err
}

// seriesX is interval i's x: its middle, in seconds from the window's
// start.
func seriesX(s *loadresult.Series, i int) float64 {
	return (s.Start(i) + s.Length(i)/2).Seconds()
}

// throughputPlot is a run's answered and failed requests a second.
func throughputPlot(r SeriesRun) (*plot.Plot, []legendEntry, error) {
	s := r.Series
	p := Panel(r.Title+": throughput", "requests a second", nil)
	p.X.Label.Text = "time (s)"
	p.Y.Min = 0
	answered, failed := make(plotter.XYs, len(s.Points)), make(plotter.XYs, len(s.Points))
	var marks plotter.XYs
	for i, pt := range s.Points {
		x, l := seriesX(s, i), s.Length(i).Seconds()
		answered[i] = plotter.XY{X: x, Y: s.Throughput(i)}
		failed[i] = plotter.XY{X: x, Y: float64(pt.Errors) / l}
		if pt.Errors > 0 {
			marks = append(marks, failed[i])
		}
	}
	ok, err := seriesLine(p, answered, plotutil.Color(4))
	if err != nil {
		return nil, nil, err
	}
	bad, err := seriesLine(p, failed, errorColour)
	if err != nil {
		return nil, nil, err
	}
	bad.Dashes = []vg.Length{vg.Points(3), vg.Points(2)}
	legend := []legendEntry{{"answered a second", []plot.Thumbnailer{ok}}, {"errors a second (× an interval with errors)", []plot.Thumbnailer{bad}}}
	if len(marks) > 0 {
		sc, err := plotter.NewScatter(marks)
		if err != nil {
			return nil, nil, err
		}
		sc.Shape, sc.Color, sc.Radius = draw.CrossGlyph{}, errorColour, vg.Points(4)
		p.Add(sc)
	}
	return p, legend, nil
}

// latencyPlot is a run's corrected latency percentiles over time.
func latencyPlot(r SeriesRun) (*plot.Plot, []legendEntry, error) {
	s := r.Series
	p := Panel(r.Title+": corrected latency", "ms", nil)
	p.X.Label.Text = "time (s)"
	p.Y.Scale, p.Y.Tick.Marker = plot.LogScale{}, compactLogTicks{}
	var legend []legendEntry
	drawn := false
	for _, m := range seriesLatencies {
		var pts plotter.XYs
		for i, pt := range s.Points {
			if pt.Hist == nil || pt.Hist.TotalCount() == 0 {
				continue
			}
			ms := max(float64(m.of(s.Latencies(i)))/float64(time.Millisecond), 1e-3)
			pts = append(pts, plotter.XY{X: seriesX(s, i), Y: ms})
		}
		if len(pts) == 0 {
			continue
		}
		line, err := seriesLine(p, pts, plotutil.Color(m.colour))
		if err != nil {
			return nil, nil, err
		}
		legend = append(legend, legendEntry{"corrected " + m.name, []plot.Thumbnailer{line}})
		drawn = true
	}
	if !drawn {
		p.Y.Scale, p.Y.Tick.Marker = plot.LinearScale{}, compactTicks{} // nothing to draw on a log axis
	}
	return p, legend, nil
}

// seriesLine adds a line of pts in colour to p.
func seriesLine(p *plot.Plot, pts plotter.XYs, colour color.Color) (*plotter.Line, error) {
	line, err := plotter.NewLine(pts)
	if err != nil {
		return nil, err
	}
	line.Color, line.Width = colour, vg.Points(1.5)
	p.Add(line)
	return line, nil
}
