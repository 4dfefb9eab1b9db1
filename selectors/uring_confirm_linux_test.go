//go:build linux

package selectors

import (
	"runtime"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// TestUringConfirmsOnlyOlderCompletions: a completion that was in the
// CQ before the Select began is checked with poll(2), and dropped when
// its fd was drained meanwhile (epoll would not report it); one that
// comes while the Select waits is reported with no check.
func TestUringConfirmsOnlyOlderCompletions(t *testing.T) {
	runtime.LockOSThread() // the poll's task work runs on this thread
	defer runtime.UnlockOSThread()
	s := openUring(t)
	a, b := pair(t)
	if err := s.Register(a, Read); err != nil {
		t.Fatal(err)
	}
	if evs := selectSorted(t, s, 0); len(evs) != 0 { // arms the poll
		t.Fatalf("Select before any write = %v", evs)
	}

	// Drained before the Select: the completion is older, and stale.
	write(t, b, "x")
	if n, err := unix.Read(a, make([]byte, 8)); n != 1 || err != nil {
		t.Fatalf("read: %d, %v", n, err)
	}
	confirms := s.confirms
	if evs := selectSorted(t, s, 0); len(evs) != 0 {
		t.Fatalf("Select after draining = %v, want nothing", evs)
	}
	if got := s.confirms - confirms; got != 1 {
		t.Fatalf("stale completion: %d poll(2) checks, want 1", got)
	}

	// Written while the Select waits: reported, with no check.
	for range 5 {
		done := make(chan struct{})
		go func() {
			defer close(done)
			time.Sleep(50 * time.Millisecond)
			write(t, b, "y")
		}()
		confirms = s.confirms
		evs := selectSorted(t, s, 10*time.Second)
		<-done
		if len(evs) != 1 || evs[0] != (Event{Fd: a, Events: Read}) {
			t.Fatalf("Select while written to = %v, want fd %d readable", evs, a)
		}
		if _, err := unix.Read(a, make([]byte, 8)); err != nil {
			t.Fatal(err)
		}
		if s.confirms == confirms {
			return
		}
		// The write landed before the wait began: an older completion, checked.
	}
	t.Fatal("every completion that came during a waiting Select was checked")
}
