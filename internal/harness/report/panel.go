package report

import (
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// The plotting helpers other packages draw with (internal/harness/history), so
// their figures look like the report's.

// Panel is a new panel titled as the report's are, with y ticks labelled
// compactly and, when names are given, those names along x, rotated as
// a trend's commits are.
func Panel(title, yLabel string, names []string) *plot.Plot {
	p := plot.New()
	setPanelTitle(p, title)
	p.Y.Label.Text = yLabel
	p.Y.Tick.Marker = compactTicks{}
	if len(names) > 0 {
		p.NominalX(names...)
		p.X.Tick.Label.Rotation = math.Pi / 6
		p.X.Tick.Label.XAlign, p.X.Tick.Label.YAlign = draw.XRight, draw.YCenter
	}
	return p
}

// RangeBars are whiskers from lo to hi at each point of pts.
func RangeBars(pts plotter.XYs, lo, hi []float64) (*plotter.YErrorBars, error) {
	errs := make(plotter.YErrors, len(pts))
	for i, pt := range pts {
		errs[i].Low, errs[i].High = pt.Y-lo[i], hi[i]-pt.Y
	}
	return plotter.NewYErrorBars(errorXYs{pts, errs})
}

// Tile draws panels on one SVG canvas under a title, two a row, as the
// report's figures (without a legend).
func Tile(plots []*plot.Plot, title string) ([]byte, error) {
	svg, err := tile(plots, title, nil, 3.2*vg.Inch)
	return fontFallback(svg), err
}

// InlineSVG readies an SVG for an HTML page, as the report's page holds
// its figures.
func InlineSVG(svg []byte) []byte { return inlineSVG(svg) }
