package report

import (
	"cmp"
	"image/color"
	"slices"

	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// seriesStyle is how one series (a column, or a row of a trend) is
// drawn.
type seriesStyle struct {
	color  color.Color
	shape  draw.GlyphDrawer
	dashes []vg.Length
}

// series is what styles needs of a series: its parts and its kind.
type series struct {
	parts    []KV
	baseline bool
}

// styles gives each series a style that tells it apart: the part with
// the most values among the loop's series picks the colour, the next
// the marker, any others the dashes (2 ready queues × 3 timer queues × 3
// selectors are 18 distinct lines); with one varying part, colour and
// marker both follow it. Baselines are gray and dashed, each with its own
// marker.
//
// Where the colour is fixed elsewhere (colourFixed: a palette's), the
// marker follows the part with the most values and the dashes the
// others, so that the series stay apart without the colour.
func styles(ss []series, colourFixed bool) []seriesStyle {
	var loops [][]KV
	for _, s := range ss {
		if !s.baseline {
			loops = append(loops, s.parts)
		}
	}
	keys := styleKeys(loops)
	out := make([]seriesStyle, len(ss))
	nb := 0
	for i, s := range ss {
		if s.baseline {
			gray := uint8(90 + 40*(nb%3))
			out[i] = seriesStyle{color.RGBA{gray, gray, gray, 255}, plotutil.Shape(nb), []vg.Length{vg.Points(5), vg.Points(3)}}
			nb++
			continue
		}
		idx := func(k int) int { return keys[k].index(partValue(s.parts, keys[k].key)) }
		st := seriesStyle{color: plotutil.Color(i), shape: plotutil.Shape(i)}
		switch {
		case colourFixed && len(keys) >= 1:
			st.shape = plotutil.Shape(idx(0))
			if d := dashIndex(keys[1:], idx, 1); d > 0 {
				st.dashes = plotutil.Dashes(d)
			}
		case len(keys) == 1:
			st.color, st.shape = plotutil.Color(idx(0)), plotutil.Shape(idx(0))
		case len(keys) >= 2:
			st.color, st.shape = plotutil.Color(idx(0)), plotutil.Shape(idx(1))
			if d := dashIndex(keys[2:], idx, 2); d > 0 {
				st.dashes = plotutil.Dashes(d)
			}
		}
		out[i] = st
	}
	return out
}

// dashIndex numbers a series' combination of the values of keys (the
// style keys from index first on): 0, solid, for the first of each.
func dashIndex(keys []styleKey, idx func(int) int, first int) int {
	d := 0
	for k := range keys {
		d = d*len(keys[k].values) + idx(first+k)
	}
	return d
}

// styleKey is a part that varies among the series, with its values in
// the order first seen.
type styleKey struct {
	key    string
	values []string
}

func (k styleKey) index(v string) int { return slices.Index(k.values, v) }

// styleKeys returns the parts that vary among the series, the one with
// the most values first (ties in the parts' order).
func styleKeys(ss [][]KV) []styleKey {
	var keys []styleKey
	for _, parts := range ss {
		for _, p := range parts {
			i := slices.IndexFunc(keys, func(k styleKey) bool { return k.key == p.Key })
			if i < 0 {
				keys = append(keys, styleKey{key: p.Key})
				i = len(keys) - 1
			}
			if !slices.Contains(keys[i].values, p.Value) {
				keys[i].values = append(keys[i].values, p.Value)
			}
		}
	}
	// A series without the part has the value "".
	for i := range keys {
		for _, parts := range ss {
			if v := partValue(parts, keys[i].key); v == "" && !slices.Contains(keys[i].values, "") {
				keys[i].values = append(keys[i].values, "")
			}
		}
	}
	keys = slices.DeleteFunc(keys, func(k styleKey) bool { return len(k.values) < 2 })
	slices.SortStableFunc(keys, func(a, b styleKey) int { return cmp.Compare(len(b.values), len(a.values)) })
	return keys
}

// partValue returns the value of key among parts, or "".
func partValue(parts []KV, key string) string {
	for _, p := range parts {
		if p.Key == key {
			return p.Value
		}
	}
	return ""
}

// colStyles are the styles of t's columns: the colour the palette's,
// the marker and dashes by the other parts that vary.
func (t *Table) colStyles(pal *palette) []seriesStyle {
	ss := make([]series, len(t.Cols))
	for j, c := range t.Cols {
		parts := slices.DeleteFunc(slices.Clone(c.Parts), func(p KV) bool { return p.Key == pal.key })
		ss[j] = series{parts: parts, baseline: c.Baseline}
	}
	st := styles(ss, true)
	for j, c := range t.Cols {
		if !c.Baseline {
			st[j].color = pal.colour(c)
		}
	}
	return st
}
