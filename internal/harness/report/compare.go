package report

import (
	"fmt"
	"slices"

	"golang.org/x/perf/benchmath"
)

// Alpha is the level at which a cell's ratio to its row's reference is
// shown: a Mann-Whitney U test per cell, uncorrected, as benchstat marks
// its deltas. A cell the test cannot separate from the reference shows ~.
const Alpha = 0.05

// MinIntervalRuns is the fewest runs that give a 95 % confidence interval
// of the median (benchmath needs 6).
const MinIntervalRuns = 6

// TestNote explains the ratios and the marks of every table: said once,
// above the tables.
const TestNote = "×ratio: to the row's first cell, shown where a Mann-Whitney U test (benchmath, as benchstat) separates the two at p < 0.05, uncorrected per cell; ~: it cannot (too few runs or too much spread), whatever the medians say. This is not compare's rule: compare and gate correct for the number of comparisons and ask for a minimum effect, so a cell marked here can be undecided there."

// compareTo sets c's ratio to ref and whether the U test separates them.
func (c *Cell) compareTo(ref *Cell) {
	c.Ratio, c.P = 0, 1
	if ref == nil || c == ref || ref.Summary.Center == 0 {
		return
	}
	c.Ratio = c.Summary.Center / ref.Summary.Center
	s1 := benchmath.NewSample(slices.Clone(ref.Values), &benchmath.DefaultThresholds)
	s2 := benchmath.NewSample(slices.Clone(c.Values), &benchmath.DefaultThresholds)
	c.P = benchmath.AssumeNothing.Compare(s1, s2).P
	c.Significant = c.P < Alpha
}

// mark is a cell's comparison with its row's reference: "×0.84" when
// significant, "~" when not, "" for the reference itself.
func (c *Cell) mark() string {
	switch {
	case c.Ratio == 0:
		return ""
	case c.Significant:
		return fmt.Sprintf("×%.2f", c.Ratio)
	}
	return "~"
}

// spread is the cell's interval as "± 3%", or the runs when they are too
// few for one.
func (c *Cell) spread() string {
	if len(c.Values) < MinIntervalRuns {
		return fmt.Sprintf("(n=%d)", len(c.Values))
	}
	return "± " + c.Summary.PctRangeString()
}

// compareRows sets every cell's comparison with its row's first cell (the
// default variant's where it has one).
func (t *Table) compareRows() {
	for i := range t.Rows {
		var ref *Cell
		for j := range t.Cols {
			c := t.Cell(i, j)
			if c == nil {
				continue
			}
			if ref == nil {
				ref = c
			}
			c.compareTo(ref)
		}
	}
}

// Wide counts the cells whose interval is wider than bound (relative, on
// either side of the median) and the cells with an interval at all.
func (t *Table) Wide(bound float64) (wide, total int) {
	for _, c := range t.cells {
		s := c.Summary
		if len(c.Values) < MinIntervalRuns || s.Center == 0 {
			continue
		}
		total++
		if max(s.Hi-s.Center, s.Center-s.Lo)/s.Center > bound {
			wide++
		}
	}
	return wide, total
}
