package report

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/plot"
)

// figureRun is a run's raw.txt with what makes its figures hard to read:
// Timers whose columns differ in the timer queue and Echo whose columns
// differ in the selector, an Echo case only the baseline ran,
// Coordination cases of one tasks= value each, and allocations below one
// per op beside whole ones.
const figureRun = `goos: linux
BenchmarkTimers/ready=ringbuffer/timers=heap4ary/selector=epoll/op=churn/p=1000-2 1000 100 ns/op 5e-08 allocs/op
BenchmarkTimers/ready=ringbuffer/timers=heap4ary/selector=epoll/op=churn/p=10000-2 1000 150 ns/op 4e-06 allocs/op
BenchmarkTimers/ready=ringbuffer/timers=heap4ary/selector=epoll/op=churn/p=100000-2 1000 200 ns/op 0 allocs/op
BenchmarkTimers/ready=ringbuffer/timers=wheel/selector=epoll/op=churn/p=1000-2 1000 90 ns/op 1e-05 allocs/op
BenchmarkTimers/ready=ringbuffer/timers=wheel/selector=epoll/op=churn/p=10000-2 1000 95 ns/op 2e-05 allocs/op
BenchmarkTimers/ready=ringbuffer/timers=wheel/selector=epoll/op=churn/p=100000-2 1000 99 ns/op 3e-05 allocs/op
BenchmarkTimers/impl=afterfunc/op=churn/p=1000-2 1000 400 ns/op 1 allocs/op
BenchmarkTimers/impl=afterfunc/op=churn/p=10000-2 1000 500 ns/op 1 allocs/op
BenchmarkTimers/impl=afterfunc/op=churn/p=100000-2 1000 900 ns/op 1 allocs/op
BenchmarkTimers/ready=ringbuffer/timers=heap4ary/selector=epoll/op=cold-fire/k=1000-2 10 5000 ns/op 40 allocs/op
BenchmarkTimers/ready=ringbuffer/timers=wheel/selector=epoll/op=cold-fire/k=1000-2 10 6000 ns/op 41 allocs/op
BenchmarkEcho/ready=ringbuffer/timers=heap4ary/selector=epoll/style=protocol/size=1024/conns=10-2 1 1e6 ns/op 40000 req/s 0.5 allocs/op
BenchmarkEcho/ready=ringbuffer/timers=heap4ary/selector=poll/style=protocol/size=1024/conns=10-2 1 1e6 ns/op 39000 req/s 0.4 allocs/op
BenchmarkEcho/ready=ringbuffer/timers=heap4ary/selector=select/style=protocol/size=1024/conns=10-2 1 1e6 ns/op 20000 req/s 2 allocs/op
BenchmarkEcho/impl=gonet/size=1024/conns=10-2 1 1e6 ns/op 45000 req/s 34 allocs/op
BenchmarkCoordination/ready=ringbuffer/timers=heap4ary/selector=epoll/op=lock/tasks=1-2 1000 7 ns/op
BenchmarkCoordination/ready=deque/timers=heap4ary/selector=epoll/op=lock/tasks=1-2 1000 3 ns/op
BenchmarkCoordination/ready=ringbuffer/timers=heap4ary/selector=epoll/op=lock-yield/tasks=4-2 1000 700 ns/op
BenchmarkCoordination/ready=deque/timers=heap4ary/selector=epoll/op=lock-yield/tasks=4-2 1000 300 ns/op
BenchmarkCoordination/ready=ringbuffer/timers=heap4ary/selector=epoll/op=workers/tasks=10-2 1000 1100 ns/op
BenchmarkCoordination/ready=deque/timers=heap4ary/selector=epoll/op=workers/tasks=10-2 1000 900 ns/op
BenchmarkCoordination/ready=ringbuffer/timers=heap4ary/selector=epoll/op=workers/tasks=1000-2 1000 380 ns/op
BenchmarkCoordination/ready=deque/timers=heap4ary/selector=epoll/op=workers/tasks=1000-2 1000 3100 ns/op
`

// figureReport reads figureRun.
func figureReport(t *testing.T) *Report {
	t.Helper()
	p := filepath.Join(t.TempDir(), "raw.txt")
	if err := os.WriteFile(p, []byte(figureRun), 0o644); err != nil {
		t.Fatal(err)
	}
	rep, err := Read([]string{p}, Options{Default: def})
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

// table returns the report's table of workload and unit.
func table(t *testing.T, rep *Report, workload, unit string) *Table {
	t.Helper()
	for _, tb := range rep.Tables {
		if tb.Workload == workload && tb.Unit == unit {
			return tb
		}
	}
	t.Fatalf("no table %s %s", workload, unit)
	return nil
}

// TestOneColourMeaning: one key colours every figure of the report, each
// of its values one colour wherever it shows, baselines gray; every bar
// figure's legend names the key with each value its bars use, and every
// scaling figure's legend names the key.
func TestOneColourMeaning(t *testing.T) {
	rep := figureReport(t)
	pal := newPalette(rep.Tables)
	if pal.key != "timers" && pal.key != "selector" {
		t.Fatalf("colour key %q, want a variant key", pal.key)
	}
	byValue := map[string]string{}
	for _, tb := range rep.Tables {
		for j, st := range tb.colStyles(pal) {
			c := tb.Cols[j]
			got := fmt.Sprint(st.color)
			if c.Baseline {
				if r, g, b, _ := st.color.RGBA(); r != g || g != b || pal.colour(c) != baselineGray {
					t.Errorf("%s %s: baseline %s coloured %s", tb.Workload, tb.Unit, c.Label, got)
				}
				continue
			}
			v := partValue(c.Parts, pal.key)
			if prev, ok := byValue[v]; ok && prev != got {
				t.Errorf("%s=%s is %s in %s %s, %s elsewhere", pal.key, v, got, tb.Workload, tb.Unit, prev)
			}
			byValue[v] = got
		}
	}
	colours := map[string]bool{}
	for _, c := range byValue {
		colours[c] = true
	}
	if len(colours) != len(byValue) || len(byValue) < 2 {
		t.Errorf("values %v share colours", byValue)
	}
	figs, err := rep.Figures()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range figs {
		if len(f.Legend) == 0 {
			t.Errorf("%s: no legend", f.Name)
			continue
		}
		if !strings.Contains(f.Legend[0], pal.key) {
			t.Errorf("%s: legend %q does not name the colour key %s", f.Name, f.Legend, pal.key)
		}
	}
	echo := figs[slices.IndexFunc(figs, func(f Figure) bool { return f.Name == "Echo-req-s.svg" })]
	if want := []string{"selector=epoll", "selector=poll", "selector=select", "baseline (gray)"}; pal.key == "selector" && !slices.Equal(echo.Legend, want) {
		t.Errorf("Echo legend %q, want %q", echo.Legend, want)
	}
}

// TestPanelsShareAxis: the panels of a bar figure share one value axis,
// from 0 past the highest whisker of any panel; those of a scaling figure
// share both axes.
func TestPanelsShareAxis(t *testing.T) {
	rep := figureReport(t)
	pal := newPalette(rep.Tables)
	echo := table(t, rep, "Echo", "req/s")
	plots, err := echo.barPlots(pal)
	if err != nil {
		t.Fatal(err)
	}
	if len(plots) != 2 {
		t.Fatalf("%d Echo panels, want 2", len(plots))
	}
	for i, p := range plots {
		if p.X.Min != 0 || p.X.Max != plots[0].X.Max || p.X.Max < 45 {
			t.Errorf("Echo panel %d: x from %g to %g, panel 0 to %g; want 0 to past 45k", i, p.X.Min, p.X.Max, plots[0].X.Max)
		}
	}
	timers := table(t, rep, "Timers", "sec/op")
	if k := timers.sweepKey(); k != "p" {
		t.Fatalf("Timers sweep key %q, want p", k)
	}
	splots, _, _, err := timers.scalingPlots("p", pal)
	if err != nil {
		t.Fatal(err)
	}
	for i, p := range splots {
		if p.X.Min != splots[0].X.Min || p.X.Max != splots[0].X.Max || p.Y.Min != splots[0].Y.Min || p.Y.Max != splots[0].Y.Max {
			t.Errorf("Timers panel %d: x %g..%g y %g..%g, panel 0: x %g..%g y %g..%g", i, p.X.Min, p.X.Max, p.Y.Min, p.Y.Max, splots[0].X.Min, splots[0].X.Max, splots[0].Y.Min, splots[0].Y.Max)
		}
	}
}

// TestAllocsBelowOneDrawnAsZero: 5e-08 allocs/op is drawn as a bar of
// zero labelled "< 1", 0 as one labelled "0"; the axis says so and ends
// past the whole counts, not at the noise.
func TestAllocsBelowOneDrawnAsZero(t *testing.T) {
	rep := figureReport(t)
	pal := newPalette(rep.Tables)
	echo := table(t, rep, "Echo", "allocs/op")
	plots, err := echo.barPlots(pal)
	if err != nil {
		t.Fatal(err)
	}
	row := slices.IndexFunc(echo.Rows, func(r Row) bool { return strings.Contains(r.Label, "protocol") })
	p := plots[row]
	var bars []float64
	var marks []string
	for _, it := range echo.barItems(row, 1) {
		bars, marks = append(bars, it.v), append(marks, it.mark)
	}
	if want := []float64{0, 0, 2}; !slices.Equal(bars, want) {
		t.Errorf("protocol panel bars %v, want %v (0.5 and 0.4 drawn as 0)", bars, want)
	}
	if want := []string{"< 1", "< 1", ""}; !slices.Equal(marks, want) {
		t.Errorf("protocol panel marks %q, want %q", marks, want)
	}
	if !strings.Contains(p.X.Label.Text, "<1 drawn as 0") || p.X.Max < 34 {
		t.Errorf("axis %q to %g", p.X.Label.Text, p.X.Max)
	}
	if got := belowOneMark(0); got != "0" {
		t.Errorf("an exact 0 labelled %q", got)
	}
	timers := table(t, rep, "Timers", "allocs/op")
	splots, _, _, err := timers.scalingPlots(timers.sweepKey(), pal)
	if err != nil {
		t.Fatal(err)
	}
	figs, err := rep.Figures()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range figs {
		if f.Name == "Timers-allocs-op.svg" && !strings.Contains(f.Caption, "y linear from 0") {
			t.Errorf("caption %q does not say the axis is linear", f.Caption)
		}
	}
	for _, sp := range splots {
		if _, log := sp.Y.Scale.(plot.LogScale); log || sp.Y.Min != 0 {
			t.Errorf("Timers allocs/op panel %q: y from %g, log %v; want linear from 0", sp.Title.Text, sp.Y.Min, log)
		}
	}
}

// TestBaselineOnlyPanel: a case only the baseline ran is a panel of one
// bar named by the baseline alone, no other column's name on its axis.
func TestBaselineOnlyPanel(t *testing.T) {
	rep := figureReport(t)
	echo := table(t, rep, "Echo", "req/s")
	plots, err := echo.barPlots(newPalette(rep.Tables))
	if err != nil {
		t.Fatal(err)
	}
	for i, p := range plots {
		var names []string
		for _, tk := range p.Y.Tick.Marker.Ticks(p.Y.Min, p.Y.Max) {
			if tk.Label != "" && tk.Value >= p.Y.Min && tk.Value <= p.Y.Max {
				names = append(names, tk.Label)
			}
		}
		want := []string{"select", "poll", "epoll"}
		if !strings.Contains(echo.Rows[i].Label, "protocol") {
			want = []string{"impl=gonet (baseline)"}
		}
		if !slices.Equal(names, want) {
			t.Errorf("panel %q names %q, want %q", echo.Rows[i].Label, names, want)
		}
	}
}

// TestOnePointCasesAreBars: Coordination's cases each have one tasks=
// value but for one: no curve can be drawn through one point, so the
// table gets bars, one panel per case.
func TestOnePointCasesAreBars(t *testing.T) {
	rep := figureReport(t)
	coord := table(t, rep, "Coordination", "sec/op")
	if k := coord.sweepKey(); k != "" {
		t.Errorf("Coordination drawn along %q, want bars", k)
	}
	figs, err := rep.Figures()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range figs {
		if f.Name == "Coordination-sec-op.svg" && !strings.Contains(f.Caption, "bars the median") {
			t.Errorf("Coordination caption %q, want bars", f.Caption)
		}
	}
}
