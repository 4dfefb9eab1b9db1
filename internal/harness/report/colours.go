package report

import (
	"image/color"
	"slices"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// palette gives a colour one meaning over a whole report: the value of
// one key of the columns (the timer queue, the selector, the machine...),
// the same colour for the same value in every figure. Baselines are
// gray; a column without the key (a peer) is coloured by its label.
type palette struct {
	key    string   // "" when no key tells columns apart in any table
	values []string // in the order first seen: a value's colour is its index
}

// newPalette picks the key that tells the columns of the most tables
// apart (ties to the one with more values, then to the one first seen)
// and orders its values as the columns first show them.
func newPalette(tables []*Table) *palette {
	type keyUse struct {
		key            string
		tables, values int
	}
	var uses []keyUse
	for _, t := range tables {
		var loops [][]KV
		for _, c := range t.Cols {
			if !c.Baseline {
				loops = append(loops, c.Parts)
			}
		}
		for _, k := range styleKeys(loops) {
			i := slices.IndexFunc(uses, func(u keyUse) bool { return u.key == k.key })
			if i < 0 {
				uses = append(uses, keyUse{key: k.key})
				i = len(uses) - 1
			}
			uses[i].tables++
			uses[i].values = max(uses[i].values, len(k.values))
		}
	}
	pal := &palette{}
	best := keyUse{}
	for _, u := range uses {
		if u.tables > best.tables || (u.tables == best.tables && u.values > best.values) {
			best = u
		}
	}
	pal.key = best.key
	for _, t := range tables {
		for _, c := range t.Cols {
			if v := pal.value(c); !c.Baseline && !slices.Contains(pal.values, v) {
				pal.values = append(pal.values, v)
			}
		}
	}
	return pal
}

// value is what colours a column: its value of the key, else its label.
func (pal *palette) value(c Col) string {
	if v := partValue(c.Parts, pal.key); v != "" {
		return v
	}
	return c.Label
}

// colour is a column's colour; baselines are gray.
func (pal *palette) colour(c Col) color.Color {
	if c.Baseline {
		return baselineGray
	}
	return plotutil.Color(max(slices.Index(pal.values, pal.value(c)), 0))
}

// baselineGray is the colour of Go baselines' bars.
var baselineGray = color.RGBA{130, 130, 130, 255}

// name is a colour's legend entry: "timers=heap4ary", or the column's
// label for a column without the key.
func (pal *palette) name(c Col) string {
	switch {
	case c.Baseline:
		return "baseline (gray)"
	case partValue(c.Parts, pal.key) != "":
		return pal.key + "=" + pal.value(c)
	case c.Peer:
		return c.Label + " (peer)"
	}
	return c.Label
}

// legend returns a bar figure's legend: one swatch per colour its
// columns use, in the palette's order, then the baselines' gray.
func (pal *palette) legend(cols []Col) []legendEntry {
	var l legendSet
	byOrder := slices.Clone(cols)
	slices.SortStableFunc(byOrder, func(a, b Col) int { return pal.rank(a) - pal.rank(b) })
	for _, c := range byOrder {
		l.addNamed(pal.name(c), []plot.Thumbnailer{swatch{pal.colour(c)}})
	}
	return l.entries
}

// rank orders columns by their colour, baselines last.
func (pal *palette) rank(c Col) int {
	if c.Baseline {
		return len(pal.values)
	}
	return slices.Index(pal.values, pal.value(c))
}

// swatch is a legend's filled square of one colour.
type swatch struct{ color color.Color }

// Thumbnail draws the swatch.
func (s swatch) Thumbnail(c *draw.Canvas) {
	h := c.Max.Y - c.Min.Y
	side := min(h, vg.Points(9))
	y := c.Min.Y + (h-side)/2
	c.FillPolygon(s.color, []vg.Point{{X: c.Min.X, Y: y}, {X: c.Min.X + side, Y: y}, {X: c.Min.X + side, Y: y + side}, {X: c.Min.X, Y: y + side}})
}

// what names what the colours mean, for captions: "timers", or "column"
// when no key tells columns apart.
func (pal *palette) what() string {
	if pal.key == "" {
		return "column"
	}
	return pal.key
}
