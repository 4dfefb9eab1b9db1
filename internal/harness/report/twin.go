package report

import (
	"fmt"
	"slices"
	"strings"
)

// TwinOp is the workload whose eager and lazy cancel variants run the same
// code (cold-fire cancels nothing): their cells are an A/A check inside
// every run that has both.
const TwinOp = "op=cold-fire"

// twinPart is TwinOp as a row's part.
var twinPart = KV{"op", "cold-fire"}

// twinCheck compares, in every table, each cold-fire cell of a cancel=lazy
// column with the same row of the column that differs from it only in
// the cancel mode. A difference the U test finds between identical code is
// this run's noise, and a banner says so; otherwise Checks records the
// pass.
func (rep *Report) twinCheck() {
	pairs, separated := 0, []string{}
	for _, t := range rep.Tables {
		for j, col := range t.Cols {
			if !slices.Contains(col.Parts, KV{"cancel", "lazy"}) {
				continue
			}
			k := t.eagerTwin(j)
			if k < 0 {
				continue
			}
			for i, row := range t.Rows {
				lazy, eager := t.Cell(i, j), t.Cell(i, k)
				if lazy == nil || eager == nil || !slices.Contains(row.Parts, twinPart) {
					continue
				}
				pairs++
				c := *lazy
				c.compareTo(eager)
				if c.Significant {
					separated = append(separated, fmt.Sprintf("%s %s %s ×%.2f (p=%.2g)", t.Workload, t.Unit, row.Label+" "+col.Label, c.Ratio, c.P))
				}
			}
		}
	}
	switch {
	case pairs == 0:
	case len(separated) > 0:
		rep.Banners = append(rep.Banners, fmt.Sprintf("In-run A/A check failed: eager and lazy cancel run the same code in %s, yet the U test separates %d of %d such pairs (%s). Differences of that size elsewhere in this run are noise.",
			TwinOp, len(separated), pairs, strings.Join(separated, "; ")))
	default:
		rep.Checks = append(rep.Checks, fmt.Sprintf("In-run A/A check: eager and lazy cancel run the same code in %s; the U test separates none of the %d pairs (~).", TwinOp, pairs))
	}
}

// eagerTwin returns the column with col j's parts but no cancel=lazy, or -1.
func (t *Table) eagerTwin(j int) int {
	want := slices.DeleteFunc(slices.Clone(t.Cols[j].Parts), func(kv KV) bool { return kv == KV{"cancel", "lazy"} })
	for k, c := range t.Cols {
		if k != j && slices.Equal(c.Parts, want) {
			return k
		}
	}
	return -1
}
