package report

import (
	"slices"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
)

// panels groups the rows by their parts that inPanel keeps, but for those
// every row shares (the title has them), in the order they first occur,
// at most maxPanels of them; a panel's title names the parts bare.
func (t *Table) panels(inPanel func(KV) bool) []*scalingPanel {
	var panels []*scalingPanel
	for i, r := range t.Rows {
		var rest []KV
		for _, p := range r.Parts {
			if inPanel(p) && !slices.Contains(t.Common, p) {
				rest = append(rest, p)
			}
		}
		label := joinParts(bare(rest))
		k := slices.IndexFunc(panels, func(p *scalingPanel) bool { return p.label == label })
		if k < 0 {
			panels = append(panels, &scalingPanel{label: label})
			k = len(panels) - 1
		}
		panels[k].rows = append(panels[k].rows, i)
	}
	return panels[:min(len(panels), maxPanels)]
}

// panelTitleWidth is the most characters of a panel title's line: two
// panels side by side must not run into each other.
const panelTitleWidth = 44

// setPanelTitle titles a panel with label, broken at its "/" into lines
// of at most panelTitleWidth characters.
func setPanelTitle(p *plot.Plot, label string) {
	var lines []string
	cur := ""
	for i, seg := range strings.Split(label, "/") {
		if i > 0 {
			seg = "/" + seg
		}
		if cur != "" && len([]rune(cur+seg)) > panelTitleWidth {
			lines = append(lines, cur)
			cur = strings.TrimPrefix(seg, "/")
			continue
		}
		cur += seg
	}
	p.Title.Text = strings.Join(append(lines, cur), "\n")
	p.Title.TextStyle.Font.Size = vg.Points(11)
}
