package main

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/loopbench/loopbench/internal/harness/runner"
)

// newTicks starts the clock of the heartbeat lines; tests give their own
// channel instead.
var newTicks = func() (<-chan time.Time, func()) {
	t := time.NewTicker(runner.HeartbeatEvery)
	return t.C, t.Stop
}

// isTerminal reports whether w, or the writer a lockedWriter serializes,
// is a terminal.
func isTerminal(w io.Writer) bool {
	if l, ok := w.(*lockedWriter); ok {
		w = l.w
	}
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// heartbeat writes line(t) to w at each tick t until stop is called
// (runner.Heartbeat, the gate's as the run's).
var heartbeat = runner.Heartbeat

// gateProgress passes a gate's log to stderr. On a terminal every line
// goes through; elsewhere its round lines are held and the latest is
// repeated, with the time elapsed, on each tick of the heartbeat, so a CI
// log shows a line at least every heartbeatEvery and not one per side
// and round. The rest (build output) always goes through.
type gateProgress struct {
	mu     sync.Mutex
	w      io.Writer
	begun  time.Time
	latest string
}

// Write passes p on, or holds it when it is a round line off a terminal.
func (g *gateProgress) Write(p []byte) (int, error) {
	if s, ok := strings.CutPrefix(string(p), "round "); ok {
		g.mu.Lock()
		g.latest = "round " + strings.TrimSpace(s)
		g.mu.Unlock()
		return len(p), nil
	}
	return g.w.Write(p)
}

// line is the heartbeat's line at t.
func (g *gateProgress) line(t time.Time) string {
	g.mu.Lock()
	defer g.mu.Unlock()
	at := "building"
	if g.latest != "" {
		at = g.latest
	}
	return fmt.Sprintf("loopbench gate: %s; %v elapsed", at, t.Sub(g.begun).Round(time.Second))
}
