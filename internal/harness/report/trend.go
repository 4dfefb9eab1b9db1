package report

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// trendKeys are the configuration keys whose columns make a history: a
// table whose columns differ only in them is drawn as a trend.
var trendKeys = []string{"commit", "date"}

// trend reports whether t's columns are runs in history order: two or
// more, each named by a trendKeys key and at most the machine besides (a
// kernel upgraded between two commits makes another machine).
func (t *Table) trend() bool {
	if len(t.Cols) < 2 {
		return false
	}
	for _, c := range t.Cols {
		history := false
		for _, p := range c.Parts {
			switch {
			case slices.Contains(trendKeys, p.Key):
				history = true
			case p.Key != MachineKey:
				return false
			}
		}
		if !history {
			return false
		}
	}
	return true
}

// trendFigure draws a table over commits as gobenchdata and Bencher draw
// a branch's history: one panel per case, the commits along x in the
// order given, one line per variant (the rows that differ only in their
// variant keys), whiskers the 95 % interval.
func (t *Table) trendFigure() (Figure, error) {
	s, unit := t.scale()
	panels := t.panels(func(p KV) bool { return !slices.Contains(VariantKeys, p.Key) })
	labels := make([][]KV, len(t.Rows))
	for i, r := range t.Rows {
		for _, p := range r.Parts {
			if slices.Contains(VariantKeys, p.Key) && !slices.Contains(t.Common, p) {
				labels[i] = append(labels[i], p)
			}
		}
	}
	ss := make([]series, len(t.Rows))
	for i := range t.Rows {
		ss[i] = series{parts: labels[i], baseline: partValue(labels[i], "impl") != ""}
	}
	st := styles(ss, false)
	names := make([]string, len(t.Cols))
	for j, c := range t.Cols {
		names[j] = trendTick(c)
	}
	var plots []*plot.Plot
	var legend legendSet
	ymax := t.barMax(len(t.Rows), s.Factor) // every panel on one axis
	for _, pn := range panels {
		p, err := t.trendPlot(pn, s.Factor, unit, names, st, labels, &legend)
		if err != nil {
			return Figure{}, err
		}
		p.Y.Max = ymax
		plots = append(plots, p)
	}
	svg, err := tile(plots, t.titleIn(unit), legend.entries, 3.2*vg.Inch)
	caption := fmt.Sprintf("%s, %s over the commits in the order given: one line per variant, whiskers the 95 %% interval; gray dashed lines are baselines.", t.Workload, unit)
	return Figure{Name: t.FileName(), Caption: caption, SVG: svg, Legend: entryNames(legend.entries)}, err
}

// trendPlot draws one panel of a trend: a line per row of the panel
// over the columns.
func (t *Table) trendPlot(pn *scalingPanel, factor float64, unit string, names []string, st []seriesStyle, labels [][]KV, legend *legendSet) (*plot.Plot, error) {
	p := plot.New()
	setPanelTitle(p, pn.label)
	p.Y.Label.Text = t.valueLabel(unit)
	p.Y.Min = 0
	p.Y.Tick.Marker = compactTicks{}
	p.NominalX(names...)
	p.X.Tick.Label.Rotation = math.Pi / 6
	p.X.Tick.Label.XAlign, p.X.Tick.Label.YAlign = draw.XRight, draw.YCenter
	for _, i := range pn.rows {
		var pts plotter.XYs
		var errs plotter.YErrors
		for j := range t.Cols {
			c := t.Cell(i, j)
			if c == nil {
				continue
			}
			y, lo, hi, _ := t.drawn(c, factor)
			pts = append(pts, plotter.XY{X: float64(j), Y: y})
			errs = append(errs, struct{ Low, High float64 }{y - lo, hi - y})
		}
		if len(pts) == 0 {
			continue
		}
		line, points, err := plotter.NewLinePoints(pts)
		if err != nil {
			return nil, err
		}
		line.Color, line.Dashes, points.Color, points.Shape = st[i].color, st[i].dashes, st[i].color, st[i].shape
		bars, err := plotter.NewYErrorBars(errorXYs{pts, errs})
		if err != nil {
			return nil, err
		}
		bars.Color = st[i].color
		p.Add(line, points, bars)
		name := joinParts(bare(labels[i]))
		if name == "" {
			name = t.Rows[i].Label
		}
		legend.addNamed(name, []plot.Thumbnailer{line, points})
	}
	return p, nil
}

// trendTick is a column's label along a trend's x axis: the commit at 8
// characters, or the date.
func trendTick(c Col) string {
	var parts []string
	for _, p := range c.Parts {
		v := p.Value
		if p.Key == "commit" && len(v) > 8 {
			v = v[:8]
		}
		parts = append(parts, v)
	}
	return strings.Join(parts, " ")
}

// bare drops the keys of the parts that name themselves.
func bare(parts []KV) []KV {
	out := slices.Clone(parts)
	for i, p := range out {
		if slices.Contains(bareKeys, p.Key) {
			out[i].Key = ""
		}
	}
	return out
}
