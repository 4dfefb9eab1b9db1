//go:build linux

package selectors

import (
	"runtime"
	"testing"

	"golang.org/x/sys/unix"
)

// onThread runs fn on a goroutine locked to a thread of its own, which
// it keeps until release is closed: two calls that overlap run on two
// different threads.
func onThread(fn func(), release <-chan struct{}) {
	done := make(chan struct{})
	go func() {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		fn()
		close(done)
		<-release
	}()
	<-done
}

// TestUringRehome: after Rescheduled, a Select on another thread arms
// the polls in flight again from there, once each; a Select on the same
// thread arms nothing again. Readiness is reported as before, once per
// Select, and the old polls' completions are dropped.
func TestUringRehome(t *testing.T) {
	s := openUring(t)
	a, b := pair(t)
	c, d := pair(t)
	for _, fd := range []int{a, c} {
		if err := s.Register(fd, Read); err != nil {
			t.Fatal(err)
		}
	}
	release := make(chan struct{})
	defer close(release)
	onThread(func() {
		if evs := selectSorted(t, s, 0); len(evs) != 0 { // arms both polls here
			t.Errorf("first Select = %v", evs)
		}
		s.Rescheduled()
		if evs := selectSorted(t, s, 0); len(evs) != 0 || s.rehomed != 0 {
			t.Errorf("Select on the same thread = %v, %d polls armed again; want none", evs, s.rehomed)
		}
	}, release)
	if t.Failed() {
		return
	}
	onThread(func() {
		s.Rescheduled()
		if evs := selectSorted(t, s, 0); len(evs) != 0 {
			t.Errorf("Select on another thread = %v", evs)
		}
		if s.rehomed != 2 {
			t.Errorf("%d polls armed again on another thread, want 2", s.rehomed)
		}
		write(t, b, "x")
		for i := range 3 { // level-triggered: reported until drained, once a Select
			evs := selectSorted(t, s, -1)
			if len(evs) != 1 || evs[0] != (Event{Fd: a, Events: Read}) {
				t.Errorf("Select %d after the write = %v, want fd %d readable once", i, evs, a)
				return
			}
		}
		if _, err := unix.Read(a, make([]byte, 8)); err != nil {
			t.Error(err)
		}
		write(t, d, "y")
		if evs := selectSorted(t, s, -1); len(evs) != 1 || evs[0] != (Event{Fd: c, Events: Read}) {
			t.Errorf("Select after the second write = %v, want only fd %d readable", evs, c)
		}
	}, release)
}
