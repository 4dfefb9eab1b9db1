package looptest

import (
	"os"
	"runtime"
	"testing"
	"time"
)

// openFds counts the process's open file descriptors; it skips the test
// where /proc/self/fd does not exist.
func openFds(t *testing.T) int {
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Skip("no /proc/self/fd:", err)
	}
	return len(ents)
}

// settle waits, up to ten seconds, until done holds, and reports whether
// it did: goroutines that are ending and descriptors being closed are
// given the time to go.
func settle(done func() bool) bool {
	deadline := time.Now().Add(10 * time.Second)
	for !done() && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	return done()
}

// held is what the process holds at one point: open fds and goroutines.
type held struct{ fds, gs int }

// holding counts what the process holds now.
func holding(t *testing.T) held { return held{openFds(t), runtime.NumGoroutine()} }

// leftNothing fails t when, once settled, the process holds more fds or
// goroutines than before did; what names the point ("after Close").
func (before held) leftNothing(t *testing.T, what string) {
	var now held
	settle(func() bool {
		now = holding(t)
		return now.fds <= before.fds && now.gs <= before.gs
	})
	if now.fds > before.fds || now.gs > before.gs {
		t.Fatalf("%s: %d fds (%d before), %d goroutines (%d before)", what, now.fds, before.fds, now.gs, before.gs)
	}
}
