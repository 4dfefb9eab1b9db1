package report

import (
	"fmt"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
)

// belowOne reports whether a figure draws value v of t as zero: fewer
// than one allocation per op is a setup allocation amortised over b.N,
// not a difference between variants.
func (t *Table) belowOne(v float64) bool { return t.Unit == "allocs/op" && v < 1 }

// valueLabel labels a panel's value axis: the unit, what is better, and
// for allocs/op that counts below one are drawn as zero.
func (t *Table) valueLabel(unit string) string {
	if t.Unit == "allocs/op" {
		return unit + " (<1 drawn as 0), " + t.BetterText()
	}
	return unit + ", " + t.BetterText()
}

// drawn returns what a figure draws of a cell on a scale: its center and
// its interval, kept drawable (clampCI), or zeros and true when the
// center is below one allocation.
func (t *Table) drawn(c *Cell, factor float64) (v, lo, hi float64, floored bool) {
	v = c.Summary.Center / factor
	if t.belowOne(v) {
		return 0, 0, 0, true
	}
	lo, hi = clampCI(c.Summary.Lo/factor, v, c.Summary.Hi/factor)
	return v, lo, hi, false
}

// barMax is the end of the value axis every panel of a bar or trend
// figure shares: the highest whisker drawn in the first rows rows, padded.
func (t *Table) barMax(rows int, factor float64) float64 {
	m := 0.0
	for i := range rows {
		for j := range t.Cols {
			if c := t.Cell(i, j); c != nil {
				_, _, hi, _ := t.drawn(c, factor)
				m = max(m, hi)
			}
		}
	}
	if m <= 0 {
		return 1
	}
	return m * 1.05
}

// barFigure draws one panel per case: a horizontal bar per column that has
// a value in it (so that its name reads without turning), its 95 %
// interval as a whisker, coloured by the palette and baselines in gray,
// every panel on one value axis, under a legend of the colours.
func (t *Table) barFigure(pal *palette) (Figure, error) {
	_, unit := t.scale()
	plots, err := t.barPlots(pal)
	if err != nil {
		return Figure{}, err
	}
	height := vg.Length(len(t.Cols))*0.2*vg.Inch + 1.1*vg.Inch
	legend := pal.legend(t.Cols)
	svg, err := tile(plots, t.titleIn(unit), legend, height)
	caption := fmt.Sprintf("%s, %s per %s: bars the median, whiskers the 95 %% interval, every panel on one axis; the colour is the %s (legend), gray bars are baselines.", t.Workload, unit, t.colKind(), pal.what())
	return Figure{Name: t.FileName(), Caption: caption, SVG: svg, Legend: entryNames(legend)}, err
}

// barPlots draws the panels of a bar figure, one per case, on one value
// axis.
func (t *Table) barPlots(pal *palette) ([]*plot.Plot, error) {
	rows := min(len(t.Rows), maxPanels)
	s, unit := t.scale()
	xmax := t.barMax(rows, s.Factor)
	var plots []*plot.Plot
	for i := range rows {
		p, err := t.barPlot(i, s.Factor, unit, pal, xmax)
		if err != nil {
			return nil, err
		}
		plots = append(plots, p)
	}
	return plots, nil
}

// barItem is one bar of a panel as drawn: its column, its name on the
// axis, its length and whisker, and the mark of a bar drawn as zero.
type barItem struct {
	col       Col
	name      string
	v, lo, hi float64
	mark      string // "< 1" or "0" for a count drawn as zero, else ""
}

// barItems returns row i's bars, top first: the columns that have a
// value in it.
func (t *Table) barItems(i int, factor float64) []barItem {
	var out []barItem
	for j, c := range t.Cols {
		cell := t.Cell(i, j)
		if cell == nil {
			continue
		}
		it := barItem{col: c, name: legendName(c)}
		var floored bool
		it.v, it.lo, it.hi, floored = t.drawn(cell, factor)
		if floored {
			it.mark = belowOneMark(cell.Summary.Center)
		}
		out = append(out, it)
	}
	return out
}

// barPlot draws row i's panel of a bar figure, its value axis from 0 to
// xmax. A bar below one allocation is drawn as zero and labelled "< 1"
// ("0" when none was counted).
func (t *Table) barPlot(i int, factor float64, unit string, pal *palette, xmax float64) (*plot.Plot, error) {
	p := plot.New()
	setPanelTitle(p, t.Rows[i].Label)
	p.X.Label.Text = t.valueLabel(unit)
	items := t.barItems(i, factor)
	n := len(items)
	names := make([]string, n)
	var marks plotter.XYLabels
	for k, it := range items {
		y := float64(n - 1 - k) // the first column on top
		names[n-1-k] = it.name
		bar, err := plotter.NewBarChart(plotter.Values{it.v}, vg.Points(11))
		if err != nil {
			return nil, err
		}
		bar.Color, bar.XMin, bar.Horizontal = pal.colour(it.col), y, true
		bar.LineStyle.Width = 0
		p.Add(bar)
		if it.mark != "" {
			marks.XYs = append(marks.XYs, plotter.XY{X: 0, Y: y})
			marks.Labels = append(marks.Labels, it.mark)
			continue
		}
		whisk, err := plotter.NewXErrorBars(xErrorXYs{plotter.XYs{{X: it.v, Y: y}}, plotter.XErrors{{Low: it.v - it.lo, High: it.hi - it.v}}})
		if err != nil {
			return nil, err
		}
		p.Add(whisk)
	}
	if len(marks.XYs) > 0 {
		l, err := plotter.NewLabels(marks)
		if err != nil {
			return nil, err
		}
		l.Offset = vg.Point{X: vg.Points(3), Y: -vg.Points(4)}
		p.Add(l)
	}
	if n > 0 {
		p.NominalY(names...)
	}
	p.Y.Min, p.Y.Max = -0.6, float64(n)-0.4
	p.X.Min, p.X.Max = 0, xmax
	p.X.Tick.Marker = compactTicks{}
	return p, nil
}

// belowOneMark labels a bar drawn as zero: "0" when it is, else "< 1".
func belowOneMark(v float64) string {
	if v == 0 {
		return "0"
	}
	return "< 1"
}

type xErrorXYs struct {
	plotter.XYs
	plotter.XErrors
}
