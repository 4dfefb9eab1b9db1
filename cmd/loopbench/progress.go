package main

import (
	"io"
	"os"
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

// lockedWriter serializes writes to w: a server's stderr, copied by
// os/exec's goroutine, the heartbeat and the progress lines share it.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}
