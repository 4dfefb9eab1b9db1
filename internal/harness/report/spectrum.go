package report

import (
	"fmt"
	"math"
	"time"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
)

// SpectrumSeries is one latency measure's percentile spectrum.
type SpectrumSeries struct {
	Name   string
	Points []SpectrumPoint
}

// SpectrumPoint is a latency at a quantile (0 to 1).
type SpectrumPoint struct {
	Quantile float64
	Latency  time.Duration
}

// spectrumMax is the highest 1/(1-q) drawn: the 99.9999th percentile.
const spectrumMax = 1e6

// Spectrum draws HdrHistogram's percentile plot: latency against the
// percentile, the percentile axis on a log scale of 1/(1-q) so that the
// tail (99 %, 99.9 %, 99.99 %) gets room, as wrk2's users plot it.
func Spectrum(title string, series []SpectrumSeries) ([]byte, error) {
	p := plot.New()
	p.Title.Text = ""
	p.X.Label.Text = "percentile"
	p.X.Scale = plot.LogScale{}
	p.X.Tick.Marker = percentileTicks{}
	var hi time.Duration
	for _, s := range series {
		for _, pt := range s.Points {
			hi = max(hi, pt.Latency)
		}
	}
	scale, unit := time.Millisecond, "ms"
	if hi < 2*time.Millisecond {
		scale, unit = time.Microsecond, "µs"
	}
	p.Y.Label.Text = "latency (" + unit + ")"
	p.Y.Min = 0
	p.Y.Tick.Marker = compactTicks{}
	var legend []legendEntry
	xmax := 2.0
	for i, s := range series {
		var pts plotter.XYs
		for _, pt := range s.Points {
			x := 1 / (1 - pt.Quantile)
			if pt.Quantile >= 1 || x > spectrumMax {
				continue
			}
			pts = append(pts, plotter.XY{X: x, Y: float64(pt.Latency) / float64(scale)})
			xmax = max(xmax, x)
		}
		if len(pts) == 0 {
			continue
		}
		line, err := plotter.NewLine(pts)
		if err != nil {
			return nil, err
		}
		line.Color = plotutil.Color(i)
		line.Width = vg.Points(1.5)
		p.Add(line)
		legend = append(legend, legendEntry{s.Name, []plot.Thumbnailer{line}})
	}
	if len(legend) == 0 {
		return nil, fmt.Errorf("no latency was recorded")
	}
	p.X.Min, p.X.Max = 1, math.Pow(10, math.Ceil(math.Log10(xmax)))
	return tile([]*plot.Plot{p}, title, legend, 3.6*vg.Inch)
}

// percentileTicks label the 1/(1-q) axis in percentiles: 0 %, 90 %, 99 %,
// 99.9 %...
type percentileTicks struct{}

func (percentileTicks) Ticks(lo, hi float64) []plot.Tick {
	var ticks []plot.Tick
	for d := 0; math.Pow(10, float64(d)) <= hi*1.0001; d++ {
		x := math.Pow(10, float64(d))
		if x < lo*0.9999 {
			continue
		}
		q := 100 * (1 - 1/x)
		label := fmt.Sprintf("%g%%", math.Round(q*1e4)/1e4)
		if d == 0 {
			label = "" // 0 % would crowd 50 %
		}
		ticks = append(ticks, plot.Tick{Value: x, Label: label})
		if x*2 <= hi && d < 1 {
			ticks = append(ticks, plot.Tick{Value: 2, Label: "50%"})
		}
	}
	return ticks
}
