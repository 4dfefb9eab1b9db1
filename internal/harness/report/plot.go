package report

import (
	"bytes"
	"fmt"
	"image/color"
	"math"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/perf/benchunit"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgsvg"
)

// Figure is one plot of a table, as SVG.
type Figure struct {
	Name    string // file name: "Timers-sec-op.svg"
	Caption string
	SVG     []byte
	// Legend lists the texts of the figure's legend, in order.
	Legend []string
}

// sweepKeys are the name keys a scaling curve runs along, in order of
// preference; xLabels names them per workload.
var sweepKeys = []string{"p", "k", "conns", "batch", "tasks", "size"}

var xLabels = map[[2]string]string{
	{"Timers", "p"}:   "pending timers (p)",
	{"Timers", "k"}:   "timers scheduled from cold (k)",
	{"IOChain", "p"}:  "socket pairs registered (p)",
	{"Echo", "conns"}: "connections",
}

// maxPanels bounds the panels of one figure.
const maxPanels = 12

// Figures draws the report's plots: a table over commits gets a trend
// (trendFigure); a table whose cases sweep a size
// gets scaling curves on log-log axes, one line per column and one panel
// per value of its other keys; any other table gets bars per column with
// their 95 % interval as whiskers, one panel per case. The panels of a
// figure share its value axis; a colour means one key's value (the
// palette's) in every figure but trends.
func (rep *Report) Figures() ([]Figure, error) {
	var out []Figure
	pal := newPalette(rep.Tables)
	for _, t := range rep.Tables {
		var f Figure
		var err error
		if t.trend() {
			f, err = t.trendFigure()
		} else if key := t.sweepKey(); key != "" {
			f, err = t.scalingFigure(key, pal)
		} else {
			f, err = t.barFigure(pal)
		}
		if err != nil {
			return out, fmt.Errorf("%s: %w", t.Title(), err)
		}
		out = append(out, f)
	}
	return out, nil
}

// FileName is the table's figure file: "Timers-cpu-sec-timer.svg".
func (t *Table) FileName() string {
	clean := strings.NewReplacer("/", "-", " ", "-", ".", "_").Replace(t.Workload + "-" + t.Unit)
	return clean + ".svg"
}

// sweepKey returns a name key with at least three numeric values across
// the rows and at least two in each panel that has it (a panel of one
// point is no curve: such a table gets bars), or "".
func (t *Table) sweepKey() string {
	for _, k := range sweepKeys {
		vals := map[string]bool{}
		numeric := true
		for _, r := range t.Rows {
			for _, p := range r.Parts {
				if p.Key == k {
					if _, err := strconv.ParseFloat(p.Value, 64); err != nil {
						numeric = false
					}
					vals[p.Value] = true
				}
			}
		}
		if numeric && len(vals) >= 3 && !t.onePointPanel(k) {
			return k
		}
	}
	return ""
}

// onePointPanel reports whether a panel of a scaling figure along key
// would hold one value of it.
func (t *Table) onePointPanel(key string) bool {
	for _, pn := range t.scalingPanels(key) {
		xs := map[string]bool{}
		for _, i := range pn.rows {
			if v := partValue(t.Rows[i].Parts, key); v != "" {
				xs[v] = true
			}
		}
		if len(xs) == 1 {
			return true
		}
	}
	return false
}

// scale is the axis scale of the table's values and its unit label.
func (t *Table) scale() (benchunit.Scaler, string) {
	var centers []float64
	for i := range t.Rows {
		for j := range t.Cols {
			if c := t.Cell(i, j); c != nil {
				centers = append(centers, c.Summary.Center)
			}
		}
	}
	if t.Counts() {
		return benchunit.Scaler{Factor: 1}, t.Unit
	}
	s := benchunit.CommonScale(centers, benchunit.ClassOf(t.Unit))
	return s, scaledUnit(t.Unit, s.Prefix)
}

// scaledUnit names a unit at a scale: "sec/op" at "n" is "ns/op".
func scaledUnit(unit, prefix string) string {
	if i := strings.Index(unit, "sec"); i >= 0 {
		return unit[:i] + prefix + "s" + unit[i+3:]
	}
	if prefix == "" {
		return unit
	}
	return prefix + " " + unit
}

func legendName(c Col) string {
	switch {
	case c.Baseline:
		return c.Label + " (baseline)"
	case c.Peer:
		return c.Label + " (peer)"
	}
	return c.Label
}

// scalingFigure draws one panel per value of the rows' other keys, x the
// sweep key, one line per column, log-log (allocs/op on a linear axis
// from zero), every panel on the same axes.
func (t *Table) scalingFigure(key string, pal *palette) (Figure, error) {
	plots, legend, ax, err := t.scalingPlots(key, pal)
	if err != nil {
		return Figure{}, err
	}
	if len(plots) == 0 {
		return t.barFigure(pal)
	}
	entries := append([]legendEntry{{name: "colour: " + pal.what() + ", gray: baselines"}}, legend...)
	svg, err := tile(plots, t.titleIn(ax.unit), entries, 3.2*vg.Inch)
	axes := "log-log"
	if t.Unit == "allocs/op" {
		axes = "log x, y linear from 0"
	}
	caption := fmt.Sprintf("%s, %s against %s: one line per %s, whiskers the 95 %% interval, %s, every panel on the same axes; the colour is the %s, dashed gray lines are baselines.", t.Workload, ax.unit, ax.xLabel, t.colKind(), axes, pal.what())
	return Figure{Name: t.FileName(), Caption: caption, SVG: svg, Legend: entryNames(entries)}, err
}

// scalingPlots draws the panels of a scaling figure along key on the axes
// they share, and returns them with the legend of their columns.
func (t *Table) scalingPlots(key string, pal *palette) ([]*plot.Plot, []legendEntry, scalingAxes, error) {
	ax := t.axes(key, pal)
	panels := t.scalingPanels(key)
	for _, pn := range panels {
		for j := range t.Cols {
			t.scalingPoints(pn.rows, j, &ax)
		}
	}
	var plots []*plot.Plot
	var legend legendSet
	for _, pn := range panels {
		p, err := t.scalingPlot(pn, &ax, &legend)
		if err != nil {
			return nil, nil, ax, err
		}
		if p != nil {
			plots = append(plots, p)
		}
	}
	return plots, legend.entries, ax, nil
}

// scalingAxes are what every panel of a scaling figure shares: the sweep
// key along x and its label, the values' scale and its unit along y, the
// columns' styles, and the spans of x and y over every panel.
type scalingAxes struct {
	key, xLabel, unit string
	scale             benchunit.Scaler
	styles            []seriesStyle
	x, y              span
}

// axes returns the axes of the table's scaling figure along key, their
// spans empty.
func (t *Table) axes(key string, pal *palette) scalingAxes {
	s, unit := t.scale()
	xl := xLabels[[2]string{t.Workload, key}]
	if xl == "" {
		xl = key
	}
	return scalingAxes{key: key, xLabel: xl, unit: unit, scale: s, styles: t.colStyles(pal)}
}

// scalingPanel is one panel of a scaling figure: the rows that differ only
// in the sweep key, and the other keys that they share as its title.
type scalingPanel struct {
	label string
	rows  []int
}

// scalingPanels groups the rows by their keys other than key, in the order
// they first occur, at most maxPanels of them.
func (t *Table) scalingPanels(key string) []*scalingPanel {
	return t.panels(func(p KV) bool { return p.Key != key })
}

// legendSet is a figure's legend: one entry per column, in the order the
// columns are first drawn in any panel.
type legendSet struct {
	entries []legendEntry
	seen    map[int]bool
}

// add adds column j's entry unless the legend has it.
func (l *legendSet) add(j int, name string, thumbs []plot.Thumbnailer) {
	if l.seen == nil {
		l.seen = map[int]bool{}
	}
	if l.seen[j] {
		return
	}
	l.seen[j] = true
	l.entries = append(l.entries, legendEntry{name, thumbs})
}

// addNamed adds an entry unless the legend has one of that name.
func (l *legendSet) addNamed(name string, thumbs []plot.Thumbnailer) {
	if slices.ContainsFunc(l.entries, func(e legendEntry) bool { return e.name == name }) {
		return
	}
	l.entries = append(l.entries, legendEntry{name, thumbs})
}

// scalingPlot draws one panel of a scaling figure on the figure's axes,
// a line per column that has a value in its rows, and adds the columns it
// draws to the legend. It returns nil when no column has one.
func (t *Table) scalingPlot(pn *scalingPanel, ax *scalingAxes, legend *legendSet) (*plot.Plot, error) {
	p := plot.New()
	setPanelTitle(p, pn.label)
	p.X.Label.Text = ax.xLabel
	p.Y.Label.Text = t.valueLabel(ax.unit)
	p.X.Scale, p.X.Tick.Marker = plot.LogScale{}, compactLogTicks{}
	// Log axes need positive bounds apart: set them, padded.
	p.X.Min, p.X.Max = ax.x.padded(1.3)
	if t.Unit == "allocs/op" {
		p.Y.Min, p.Y.Max, p.Y.Tick.Marker = 0, max(ax.y.hi*1.1, 1), compactTicks{}
	} else {
		p.Y.Scale, p.Y.Tick.Marker = plot.LogScale{}, compactLogTicks{}
		p.Y.Min, p.Y.Max = ax.y.padded(1.5)
	}
	drawn := false
	for j, c := range t.Cols {
		scratch := *ax // the spans are the figure's, already set
		pts, errs := t.scalingPoints(pn.rows, j, &scratch)
		if len(pts) == 0 {
			continue
		}
		thumbs, err := addScalingLine(p, ax.styles[j], pts, errs)
		if err != nil {
			return nil, err
		}
		legend.add(j, legendName(c), thumbs)
		drawn = true
	}
	if !drawn {
		return nil, nil
	}
	return p, nil
}

// scalingPoints returns column j's points in the given rows, scaled, with
// their 95 % intervals as error bars, and widens ax's spans to hold them.
// A row without a sweep key is left out, and without a positive value
// too unless it is below one allocation (drawn at zero on a linear axis).
func (t *Table) scalingPoints(rows []int, j int, ax *scalingAxes) (plotter.XYs, plotter.YErrors) {
	var pts plotter.XYs
	var errs plotter.YErrors
	for _, i := range rows {
		cell := t.Cell(i, j)
		x := rowValue(t.Rows[i], ax.key)
		if cell == nil || x <= 0 || (cell.Summary.Center <= 0 && t.Unit != "allocs/op") {
			continue
		}
		y, lo, hi, _ := t.drawn(cell, ax.scale.Factor)
		pts = append(pts, plotter.XY{X: x, Y: y})
		errs = append(errs, struct{ Low, High float64 }{y - lo, hi - y})
		ax.x.add(x)
		if lo > 0 {
			ax.y.add(lo)
		}
		ax.y.add(hi)
	}
	return pts, errs
}

// addScalingLine adds a column's points to p as a line with markers and
// whiskers in its style, and returns the line and markers for the legend.
func addScalingLine(p *plot.Plot, st seriesStyle, pts plotter.XYs, errs plotter.YErrors) ([]plot.Thumbnailer, error) {
	line, points, err := plotter.NewLinePoints(pts)
	if err != nil {
		return nil, err
	}
	line.Color, line.Dashes, points.Color = st.color, st.dashes, st.color
	points.Shape = st.shape
	bars, err := plotter.NewYErrorBars(errorXYs{pts, errs})
	if err != nil {
		return nil, err
	}
	bars.Color = st.color
	p.Add(line, points, bars)
	return []plot.Thumbnailer{line, points}, nil
}

// rowValue returns the row's numeric value of key, or 0.
func rowValue(r Row, key string) float64 {
	for _, p := range r.Parts {
		if p.Key == key {
			v, _ := strconv.ParseFloat(p.Value, 64)
			return v
		}
	}
	return 0
}

// clampCI keeps an interval drawable: an unknown bound (too few samples)
// is drawn at the center.
func clampCI(lo, y, hi float64) (float64, float64) {
	if math.IsInf(lo, 0) || math.IsNaN(lo) || lo <= 0 {
		lo = y
	}
	if math.IsInf(hi, 0) || math.IsNaN(hi) {
		hi = y
	}
	return lo, hi
}

// span is the range of values on a log axis.
type span struct{ lo, hi float64 }

func (s *span) add(v float64) {
	if s.lo == 0 || v < s.lo {
		s.lo = v
	}
	if v > s.hi {
		s.hi = v
	}
}

// padded returns the span widened by factor f at each end.
func (s span) padded(f float64) (float64, float64) {
	return s.lo / f, s.hi * f
}

type errorXYs struct {
	plotter.XYs
	plotter.YErrors
}

// legendEntry is a line of a figure's legend.
type legendEntry struct {
	name   string
	thumbs []plot.Thumbnailer
}

// entryNames lists the entries' texts.
func entryNames(entries []legendEntry) []string {
	out := make([]string, len(entries))
	for i, e := range entries {
		out[i] = e.name
	}
	return out
}

// tile draws plots on one SVG canvas, two panels a row of the given
// height, under a title and above a legend strip.
func tile(plots []*plot.Plot, title string, legend []legendEntry, rowHeight vg.Length) ([]byte, error) {
	cols := min(2, len(plots))
	rows := (len(plots) + cols - 1) / cols
	grid := make([][]*plot.Plot, rows)
	for i, p := range plots {
		grid[i/cols] = append(grid[i/cols], p)
	}
	for len(grid[rows-1]) < cols {
		grid[rows-1] = append(grid[rows-1], nil)
	}
	const titleH = 0.35 * vg.Inch
	legendH := vg.Length(0)
	if n := len(legend); n > 0 {
		legendH = vg.Length((n+1)/2)*0.22*vg.Inch + 0.15*vg.Inch
	}
	w := max(vg.Length(cols)*4.6*vg.Inch, 7*vg.Inch)
	h := vg.Length(rows)*rowHeight + titleH + legendH
	img := vgsvg.New(w, h)
	dc := draw.New(img)
	fnt := plot.DefaultFont
	fnt.Size = vg.Points(13)
	style := draw.TextStyle{Color: color.Black, Font: fnt, Handler: plot.DefaultTextHandler, XAlign: draw.XCenter, YAlign: draw.YTop}
	dc.FillText(style, vg.Point{X: w / 2, Y: dc.Max.Y - 6}, title)
	body := dc
	body.Max.Y -= titleH
	body.Min.Y += legendH
	canvases := plot.Align(grid, draw.Tiles{Rows: rows, Cols: cols, PadX: vg.Millimeter * 5, PadY: vg.Millimeter * 5, PadTop: vg.Millimeter * 2, PadLeft: vg.Millimeter * 2, PadRight: vg.Millimeter * 4}, body)
	for r := range grid {
		for c, p := range grid[r] {
			if p != nil {
				p.Draw(canvases[r][c])
			}
		}
	}
	if legendH > 0 {
		drawLegend(dc, legend, w, legendH)
	}
	var buf bytes.Buffer
	if _, err := img.WriteTo(&buf); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// drawLegend draws the legend's entries in two columns along the bottom.
func drawLegend(dc draw.Canvas, entries []legendEntry, w, h vg.Length) {
	half := (len(entries) + 1) / 2
	for col := range 2 {
		l := plot.NewLegend()
		l.Top, l.Left = true, true
		l.TextStyle.Font.Size = vg.Points(10)
		l.Padding = vg.Points(3)
		for _, e := range entries[min(col*half, len(entries)):min((col+1)*half, len(entries))] {
			l.Add(e.name, e.thumbs...)
		}
		c := dc
		c.Min.X = vg.Length(col)*w/2 + 0.3*vg.Inch
		c.Max.X = c.Min.X + w/2 - 0.3*vg.Inch
		c.Max.Y = dc.Min.Y + h - 0.05*vg.Inch
		l.Draw(c)
	}
}

// colKind names what the columns are, for captions: "machine", "commit"
// or "variant" (also for columns of any other key).
func (t *Table) colKind() string {
	for _, k := range []string{MachineKey, "commit"} {
		if len(t.Cols) > 0 && !slices.ContainsFunc(t.Cols, func(c Col) bool { return partValue(c.Parts, k) == "" }) {
			return k
		}
	}
	return "variant"
}
