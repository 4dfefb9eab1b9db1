package main

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/loopbench/loopbench/bench"
)

var t0 = time.Date(2026, 11, 29, 0, 0, 0, 0, time.UTC)

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

// TestGateProgress: off a terminal the gate's round lines are held, and
// the heartbeat's line says the latest with the time elapsed ("building"
// before the first); build output goes straight through. A tick writes
// one line, and the heartbeat stops with the gate.
func TestGateProgress(t *testing.T) {
	var buf bytes.Buffer
	ticks := make(chan time.Time)
	stopped := 0
	log, stop := gateLog(&lockedWriter{w: &buf}, ticks, func() { stopped++ })
	g := log.(*gateProgress)
	g.begun = t0
	got := []string{g.line(t0.Add(30 * time.Second))}
	fmt.Fprintf(log, "round 1 of 4: base\n")
	fmt.Fprintf(log, "# building head\n")
	fmt.Fprintf(log, "round 1 of 4: head\n")
	got = append(got, g.line(t0.Add(60*time.Second)))
	want := []string{"loopbench gate: building; 30s elapsed", "loopbench gate: round 1 of 4: head; 1m0s elapsed"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") || buf.String() != "# building head\n" {
		t.Fatalf("lines %q, passed on %q; want %q and the build line", got, buf.String(), want)
	}
	ticks <- t0.Add(90 * time.Second)
	stop()
	if want := "loopbench gate: round 1 of 4: head; 1m30s elapsed\n"; !strings.HasSuffix(buf.String(), want) || stopped != 1 {
		t.Fatalf("after a tick: %q (ticker stopped %d times); want it to end in %q", buf.String(), stopped, want)
	}
}
