//go:build linux

package selectors

import (
	"slices"
	"testing"
	"time"

	"github.com/loopbench/loopbench/internal/sys/sock"
	"golang.org/x/sys/unix"
)

// TestUringRemovalRetry plays the kernel's answers to a removal: a poll
// answered EALREADY is removed again in each Select until its own
// completion comes, and not at all when that completion came first.
func TestUringRemovalRetry(t *testing.T) {
	s := openUring(t)
	poll := userData(5, 77) // a poll no registration has: the kernel answers ENOENT
	s.ended(poll|uringRemoval, -int32(unix.EALREADY))
	s.ended(poll|uringRemoval, -int32(unix.EALREADY))
	s.settle()
	if !slices.Equal(s.retry, []uint64{poll}) {
		t.Fatalf("after EALREADY twice, retry = %x, want [%x]", s.retry, poll)
	}
	for i := range 3 {
		if evs := selectSorted(t, s, 0); len(evs) != 0 {
			t.Fatalf("Select %d = %v", i, evs)
		}
	}
	if s.retried != 3 || len(s.retry) != 1 {
		t.Fatalf("%d removals sent again over 3 Selects, %d left; want 3, 1", s.retried, len(s.retry))
	}
	s.ended(poll, -int32(unix.ECANCELED)) // the poll's completion
	s.settle()
	enters := s.enters
	selectSorted(t, s, 0)
	if len(s.retry) != 0 || s.retried != 3 || s.enters != enters {
		t.Fatalf("after the poll's completion: retry %x, %d sent again, %d calls; want none", s.retry, s.retried, s.enters-enters)
	}

	// The poll's completion ahead of the EALREADY, in one reap.
	s.ended(poll, 1)
	s.ended(poll|uringRemoval, -int32(unix.EALREADY))
	s.ended(userData(6, 78)|uringRemoval, -int32(unix.ENOENT))
	s.settle()
	if len(s.retry) != 0 {
		t.Fatalf("completion then EALREADY: retry = %x, want none", s.retry)
	}
}

// TestUringUnregisterWokenPoll: a poll armed on one thread, woken by a
// write and unregistered from another thread before that thread ran the
// kernel's completion work, and its fd read and closed, lets the file go:
// the peer sees the end of the stream. The kernel answers such a
// removal EALREADY and, finding the fd drained, arms the poll again
// unless it is removed again (uringRemoval). The race is the kernel's:
// the test repeats it, and logs how often the removal was sent again.
func TestUringUnregisterWokenPoll(t *testing.T) {
	s := openUring(t)
	release := make(chan struct{})
	defer close(release)
	for i := range 40 {
		x, y, err := sock.Socketpair()
		if err != nil {
			t.Fatal(err)
		}
		onThread(func() {
			if err := s.Register(x, Read); err != nil {
				t.Error(err)
			}
			selectSorted(t, s, 0) // arms the poll on this thread, which then sleeps
		}, release)
		write(t, y, "x")
		if err := s.Unregister(x); err != nil {
			t.Fatal(err)
		}
		if _, err := unix.Read(x, make([]byte, 8)); err != nil {
			t.Fatal(err)
		}
		unix.Close(x)
		released := awaitEOF(t, s, y)
		unix.Close(y)
		if !released {
			t.Fatalf("round %d: the closed socket was not released (%d removals sent again)", i, s.retried)
		}
	}
	t.Logf("%d removals sent again", s.retried)
}

// awaitEOF runs Selects until fd reads the end of the stream, for at most
// 10 s, and reports whether it did.
func awaitEOF(t *testing.T, s *uringSel, fd int) bool {
	t.Helper()
	buf := make([]byte, 8)
	for end := time.Now().Add(10 * time.Second); time.Now().Before(end); {
		if _, err := s.Select(time.Millisecond, nil); err != nil {
			t.Fatal(err)
		}
		if n, err := unix.Read(fd, buf); n == 0 && err == nil {
			return true
		}
	}
	return false
}

// TestUringRetryPaced: a waiting Select sends the retries once every
// uringRetryEvery and waits no longer than until then; a zero-timeout
// Select sends them each time; with none pending, nothing changes.
func TestUringRetryPaced(t *testing.T) {
	s := openUring(t)
	now := time.Second
	s.clock = func() time.Duration { return now }
	if again, d := s.paceRetries(-1); again || d != -1 {
		t.Fatalf("no retries: paceRetries(-1) = %v, %v", again, d)
	}
	s.retry = []uint64{userData(5, 77)}
	for _, c := range []struct {
		advance, timeout, wantD time.Duration
		wantAgain               bool
	}{
		{0, 5 * time.Millisecond, 5 * time.Millisecond, true}, // the first: sent, the answer ends the wait
		{50 * time.Microsecond, 5 * time.Millisecond, 150 * time.Microsecond, false},
		{0, -1, 150 * time.Microsecond, false},
		{0, 100 * time.Microsecond, 100 * time.Microsecond, false},
		{0, 0, 0, true}, // the caller's own pace
		{150 * time.Microsecond, -1, -1, true},
	} {
		now += c.advance
		if again, d := s.paceRetries(c.timeout); again != c.wantAgain || d != c.wantD {
			t.Errorf("at %v, paceRetries(%v) = %v, %v; want %v, %v", now, c.timeout, again, d, c.wantAgain, c.wantD)
		}
	}
}
