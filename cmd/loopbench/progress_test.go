package main

import (
	"strings"
	"testing"
	"time"

	"github.com/loopbench/loopbench/bench"
)

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
