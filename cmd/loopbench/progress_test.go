package main

import (
	"io"
	"strings"
	"testing"
	"time"

	"github.com/loopbench/loopbench/bench"
)

var t0 = time.Date(2026, 11, 29, 0, 0, 0, 0, time.UTC)

// TestEstimator: the time left is each case's own measured cost times its
// measurements left, a case not measured yet costing the measured ones'
// mean; it follows the measurements as they change.
func TestEstimator(t *testing.T) {
	e := newEstimator(3, 4) // 12 measurements
	if _, ok := e.remaining(); ok {
		t.Fatal("an estimate before any measurement")
	}
	steps := []struct {
		c    int
		took time.Duration
		want time.Duration
	}{
		// case 0 took 10s: 3 more of it, 8 of the others at the mean 10s.
		{0, 10 * time.Second, 110 * time.Second},
		// case 1 took 50s (setup of a million timers): 3x10 + 3x50 + 4x30.
		{1, 50 * time.Second, 300 * time.Second},
		{2, 20 * time.Second, 240 * time.Second}, // 3x10 + 3x50 + 3x20
		// the machine slows: case 0 now 30s, its mean 20s: 2x20 + 3x50 + 3x20.
		{0, 30 * time.Second, 250 * time.Second},
	}
	for i, s := range steps {
		e.add(s.c, s.took)
		if got, ok := e.remaining(); !ok || got != s.want {
			t.Errorf("after step %d: %v %v, want %v", i, got, ok, s.want)
		}
	}
	for range 3 {
		e.add(1, 50*time.Second)
	}
	e.add(1, 50*time.Second)                             // one more than planned: none left, never negative
	if got, _ := e.remaining(); got != 100*time.Second { // 2x20 + 0 + 3x20
		t.Errorf("with case 1 done: %v, want 1m40s", got)
	}
}

// TestProgressLine: what is done and left, the time elapsed, the case
// being measured and, once a measurement has ended, the time left net of
// what the current one has run; the run's clock is injected.
func TestProgressLine(t *testing.T) {
	clk := t0
	p := newProgress(io.Discard, 2, 3, func() time.Time { return clk })
	a, b := bench.Case{Workload: "W", Variant: "a"}, bench.Case{Workload: "W", Variant: "b"}
	p.step(0, 0, a)
	want := []string{"loopbench run: 0 of 6 measurements done, 6 left, 5s elapsed; measuring round 1: W/" + a.Name()}
	got := []string{p.line(t0.Add(5 * time.Second))}
	clk = t0.Add(10 * time.Second)
	p.measured()
	p.step(0, 1, b)
	// a: 2 left at 10s; b: 3 left at the mean 10s; b has run 20s of its 10s.
	want = append(want, "loopbench run: 1 of 6 measurements done, 5 left, 30s elapsed; measuring round 1: W/"+b.Name()+"; about 30s left")
	got = append(got, p.line(t0.Add(30*time.Second)))
	clk = t0.Add(60 * time.Second)
	p.measured()
	want = append(want, "loopbench run: 2 of 6 measurements done, 4 left, 1m0s elapsed; about 2m0s left")
	got = append(got, p.line(clk))
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("line %d:\n got %q\nwant %q", i, got[i], want[i])
		}
	}
}

// TestHeartbeat: off a terminal, a run writes one progress line per tick
// of its heartbeat to stderr, saying what is done and left, and stops its
// ticker when it ends; the ticks are a channel the test drives, so
// nothing sleeps.
func TestHeartbeat(t *testing.T) {
	stubMeasure(t)
	ticks := make(chan time.Time)
	stopped := 0
	old := newTicks
	newTicks = func() (<-chan time.Time, func()) { return ticks, func() { stopped++ } }
	t.Cleanup(func() { newTicks = old })
	inner := measure
	n := 0
	measure = func(run func(bench.Timer, int) error, d time.Duration) (bench.Result, error) {
		if n++; n <= 2 {
			ticks <- time.Now() // received by the heartbeat: its line is written before it stops
		}
		return inner(run, d)
	}
	out, errs, code := runOut("run", "-workloads", "ReadyQueue", "-count", "1", "-benchtime", "1ms", "-out", t.TempDir())
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, errs, out)
	}
	var beats []string
	for _, l := range strings.Split(errs, "\n") {
		if strings.HasPrefix(l, "loopbench run: ") && strings.Contains(l, " elapsed") {
			beats = append(beats, l)
		}
	}
	if len(beats) != 2 || stopped != 1 {
		t.Fatalf("%d progress lines, ticker stopped %d times; want 2 and 1:\n%s", len(beats), stopped, errs)
	}
	for _, l := range beats {
		if !strings.Contains(l, " measurements done, ") || !strings.Contains(l, " left") {
			t.Errorf("progress line %q does not say what is done and left", l)
		}
	}
}
