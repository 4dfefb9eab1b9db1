package gate

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"time"
)

// Progress passes a gate's log (Config.Log) on to w for a log that is
// not a terminal (a CI log): its round lines (and an instruction gate's
// "counted N of M processes" lines) are held, and Line says the
// latest with the time elapsed, for a heartbeat to repeat now and then,
// so that the log shows a line at least that often and not one per side
// and round. The rest (build output, a sequential gate's looks) goes
// through as written. It is safe for concurrent use when w is.
type Progress struct {
	mu     sync.Mutex
	w      io.Writer
	begun  time.Time
	latest string
}

// NewProgress is the progress of a gate begun at begun, logging to w.
func NewProgress(w io.Writer, begun time.Time) *Progress {
	return &Progress{w: w, begun: begun}
}

// Write passes p on, or holds it when it is a round or count line.
func (g *Progress) Write(p []byte) (int, error) {
	if line := string(p); strings.HasPrefix(line, "round ") || strings.HasPrefix(line, CountedPrefix) {
		g.mu.Lock()
		g.latest = strings.TrimSpace(line)
		g.mu.Unlock()
		return len(p), nil
	}
	return g.w.Write(p)
}

// CountedPrefix starts an instruction gate's progress lines: how many
// of its callgrind processes have ended.
const CountedPrefix = "counted "

// Line is the heartbeat's line at t: the latest round ("building and
// listing" before the first: the builds, and the listing runs that size
// an instruction gate's counts) and the time elapsed since the gate began.
func (g *Progress) Line(t time.Time) string {
	g.mu.Lock()
	defer g.mu.Unlock()
	at := "building and listing"
	if g.latest != "" {
		at = g.latest
	}
	return fmt.Sprintf("loopbench gate: %s; %v elapsed", at, t.Sub(g.begun).Round(time.Second))
}
