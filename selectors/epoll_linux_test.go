//go:build linux

package selectors

import (
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// TestEpollResolution: epoll waits in nanoseconds where the kernel has
// epoll_pwait2, and a selector that fell back to epoll_wait rounds a
// 300 µs timeout up to a whole millisecond (a lower bound only: a late
// wake-up is the machine's, an early one would be a bug).
func TestEpollResolution(t *testing.T) {
	s, err := newEpoll()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var uts unix.Utsname
	if unix.Uname(&uts) == nil {
		t.Logf("kernel %s: epoll_pwait2 %v", unix.ByteSliceToString(uts.Release[:]), !s.coarse)
	}
	if !s.coarse && s.Resolution() != time.Nanosecond {
		t.Fatalf("epoll_pwait2 resolution %v; want 1ns", s.Resolution())
	}
	s.coarse = true
	if s.Resolution() != time.Millisecond {
		t.Fatalf("epoll_wait resolution %v; want 1ms", s.Resolution())
	}
	start := time.Now()
	if evs, err := s.Select(300*time.Microsecond, nil); err != nil || len(evs) != 0 {
		t.Fatalf("Select = %v, %v", evs, err)
	}
	if el := time.Since(start); el < time.Millisecond {
		t.Fatalf("epoll_wait Select(300µs) returned after %v; want >= 1ms", el)
	}
}
