package report

import (
	"fmt"
	"strings"
	"testing"

	"gonum.org/v1/plot"
)

// TestEighteenVariantsDistinct: 2 ready queues × 3 timer queues × 3
// selectors get 18 different styles (a colour per timer queue, a marker
// per selector, dashes per ready queue), and baselines are told apart
// from each other too.
func TestEighteenVariantsDistinct(t *testing.T) {
	var ss []series
	for _, r := range []string{"ringbuffer", "deque"} {
		for _, tq := range []string{"heap4ary", "heap2ary", "wheel"} {
			for _, sel := range []string{"epoll", "poll", "select"} {
				ss = append(ss, series{parts: []KV{{"ready", r}, {"timers", tq}, {"selector", sel}}})
			}
		}
	}
	ss = append(ss, series{parts: []KV{{"impl", "chan"}}, baseline: true}, series{parts: []KV{{"impl", "slice"}}, baseline: true})
	seen := map[string]int{}
	for i, st := range styles(ss, false) {
		k := fmt.Sprintf("%v %T %v", st.color, st.shape, st.dashes)
		if j, dup := seen[k]; dup {
			t.Errorf("series %v and %v share the style %s", ss[j].parts, ss[i].parts, k)
		}
		seen[k] = i
	}
}

// TestPlotsSayWhichIsBetter: every figure's title and every panel's
// value axis say whether lower or higher is better; counts are plotted
// plainly (no "n allocs/op").
func TestPlotsSayWhichIsBetter(t *testing.T) {
	rep, err := Read(append(hosts, "testdata/units.txt"), Options{Default: def})
	if err != nil {
		t.Fatal(err)
	}
	figs, err := rep.Figures()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range figs {
		texts := svgTexts(t, f.Name, f.SVG)
		n := 0
		for _, s := range texts {
			if strings.Contains(s, "lower is better") || strings.Contains(s, "higher is better") {
				n++
			}
			if strings.Contains(s, "n allocs/op") || strings.Contains(s, "n B/op") {
				t.Errorf("%s: a count on an SI scale: %q", f.Name, s)
			}
		}
		if strings.HasPrefix(f.Name, "Timers") && !strings.Contains(f.Caption, "per machine") && strings.Contains(f.Caption, "per ") {
			t.Errorf("%s: caption %q does not say the series are the machines", f.Name, f.Caption)
		}
		if n < 2 {
			t.Errorf("%s: %d texts say which is better, want the title and each panel's axis; texts %q", f.Name, n, texts)
		}
	}
}

// TestPanelTitlesBroken: a long case label is broken at its "/" into
// lines that two panels side by side hold.
func TestPanelTitlesBroken(t *testing.T) {
	p := plot.New()
	setPanelTitle(p, "ringbuffer/heap4ary/epoll/cancel=lazy/op=cold-fire/style=protocol/size=1024")
	for _, l := range strings.Split(p.Title.Text, "\n") {
		if len([]rune(l)) > panelTitleWidth {
			t.Errorf("title line %q longer than %d", l, panelTitleWidth)
		}
	}
	if strings.ReplaceAll(p.Title.Text, "\n", "/") != "ringbuffer/heap4ary/epoll/cancel=lazy/op=cold-fire/style=protocol/size=1024" {
		t.Errorf("title %q lost its parts", p.Title.Text)
	}
}
