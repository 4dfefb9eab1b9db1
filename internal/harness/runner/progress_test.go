package runner

import (
	"bytes"
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
	p := NewProgress(io.Discard, false, 2, 3, func() time.Time { return clk })
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

// TestProgressTerminal: on a terminal each measurement rewrites the line
// with its count and name, the estimate once one has ended, and Done
// clears it; no heartbeat starts.
func TestProgressTerminal(t *testing.T) {
	clk := t0
	var b bytes.Buffer
	p := NewProgress(&b, true, 1, 2, func() time.Time { return clk })
	p.Start(nil, func() { t.Error("a heartbeat on a terminal") })
	c := bench.Case{Workload: "W", Variant: "a"}
	p.step(0, 0, c)
	clk = clk.Add(5 * time.Second)
	p.measured()
	p.step(1, 0, c)
	p.Done()
	want := "\r\033[K[1/2] round 1: W/a\r\033[K[2/2] round 2: W/a; about 5s left\r\033[K"
	if b.String() != want {
		t.Errorf("terminal output %q, want %q", b.String(), want)
	}
}

// TestHeartbeatLines: a line per tick, none after stop, which returns
// once the last is written.
func TestHeartbeatLines(t *testing.T) {
	var b bytes.Buffer
	ticks := make(chan time.Time)
	stop := Heartbeat(&b, ticks, func(at time.Time) string { return at.Sub(t0).String() })
	ticks <- t0.Add(time.Second)
	ticks <- t0.Add(2 * time.Second)
	stop()
	stop() // a second stop is harmless
	if got := strings.Split(b.String(), "\n"); len(got) != 3 || got[0] != "1s" || got[1] != "2s" {
		t.Errorf("lines %q, want 1s and 2s", got)
	}
}
