package main

import (
	"io"
	"os"
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
