// Package seltest is the conformance suite every selector backend runs (the
// contract is the selectors package doc), and the socketpair helpers the
// loop's I/O tests share.
package seltest

import (
	"errors"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/loopbench/loopbench/internal/sys/sock"
	"github.com/loopbench/loopbench/selectors"
	"golang.org/x/sys/unix"
)

// Options describe what a backend supports.
type Options struct {
	MaxFd int // fds at or above are refused with ErrFdTooLarge; 0 = no limit
}

// Run runs the conformance suite on the backend called name.
func Run(t *testing.T, name string, opt Options) {
	open := func(t *testing.T) selectors.Selector {
		s, err := selectors.New(name)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		return s
	}
	t.Run("Errors", func(t *testing.T) { testErrors(t, open(t)) })
	t.Run("Readiness", func(t *testing.T) { testReadiness(t, open(t)) })
	t.Run("LevelTriggered", func(t *testing.T) { testLevel(t, open(t)) })
	t.Run("Modify", func(t *testing.T) { testModify(t, open(t)) })
	t.Run("HangUp", func(t *testing.T) { testHangUp(t, open(t)) })
	t.Run("Many", func(t *testing.T) { testMany(t, open(t)) })
	t.Run("TimeoutRoundsUp", func(t *testing.T) { testTimeout(t, open(t)) })
	t.Run("FdReuse", func(t *testing.T) { testReuse(t, open(t)) })
	t.Run("ModifyAfterReuse", func(t *testing.T) { testModifyReused(t, open(t)) })
	t.Run("HighFd", func(t *testing.T) { testHighFd(t, open(t), opt) })
	t.Run("Closed", func(t *testing.T) { testClosed(t, open(t)) })
	t.Run("Oneshot", func(t *testing.T) { testOneshot(t, open(t)) })
	t.Run("OneshotHangUp", func(t *testing.T) { testOneshotHangUp(t, open(t)) })
	t.Run("OneshotClosedDisarmed", func(t *testing.T) { testOneshotClosedDisarmed(t, open(t)) })
}

// Pair returns a non-blocking, close-on-exec stream socketpair closed at
// the end of the test.
func Pair(tb testing.TB) (a, b int) {
	tb.Helper()
	a, b, err := sock.Socketpair()
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { unix.Close(a); unix.Close(b) })
	return a, b
}

// Write writes p to fd or fails the test.
func Write(tb testing.TB, fd int, p string) {
	tb.Helper()
	if n, err := unix.Write(fd, []byte(p)); err != nil || n != len(p) {
		tb.Fatalf("write fd %d: %d, %v", fd, n, err)
	}
}

// DupAbove duplicates fd to the lowest free number >= min, closed at the
// end of the test.
func DupAbove(tb testing.TB, fd, min int) int {
	tb.Helper()
	nfd, err := unix.FcntlInt(uintptr(fd), unix.F_DUPFD_CLOEXEC, min)
	if err != nil {
		tb.Skipf("cannot dup an fd above %d: %v", min, err)
	}
	tb.Cleanup(func() { unix.Close(nfd) })
	return nfd
}

func mustSelect(t *testing.T, s selectors.Selector, d time.Duration) []selectors.Event {
	t.Helper()
	evs, err := s.Select(d, nil)
	if err != nil {
		t.Fatal(err)
	}
	slices.SortFunc(evs, func(a, b selectors.Event) int { return a.Fd - b.Fd })
	return evs
}

func want(t *testing.T, got []selectors.Event, w ...selectors.Event) {
	t.Helper()
	if !slices.Equal(got, w) {
		t.Fatalf("Select = %v, want %v", got, w)
	}
}

func testErrors(t *testing.T, s selectors.Selector) {
	a, _ := Pair(t)
	r, w := selectors.Read, selectors.Write
	cases := []struct {
		what string
		err  error
		is   error
	}{
		{"Modify of an unregistered fd", s.Modify(a, r), selectors.ErrNotRegistered},
		{"Unregister of an unregistered fd", s.Unregister(a), selectors.ErrNotRegistered},
		{"Register with no events", s.Register(a, 0), selectors.ErrBadEvents},
		{"Register with unknown events", s.Register(a, 8), selectors.ErrBadEvents},
		{"Register of a negative fd", s.Register(-1, r), unix.EBADF},
		{"Register of a closed fd", s.Register(1000, r), unix.EBADF},
		{"Register", s.Register(a, r), nil},
		{"Register twice", s.Register(a, w), selectors.ErrRegistered},
		{"Unregister", s.Unregister(a), nil},
	}
	for _, c := range cases {
		if !errors.Is(c.err, c.is) {
			t.Errorf("%s: error %v, want %v", c.what, c.err, c.is)
		}
	}
	var se *os.SyscallError
	if err := s.Register(1000, r); !errors.As(err, &se) {
		t.Errorf("a syscall failure is %T (%v), want *os.SyscallError", err, err)
	}
}

func testReadiness(t *testing.T, s selectors.Selector) {
	a, b := Pair(t)
	if err := s.Register(a, selectors.Read|selectors.Write); err != nil {
		t.Fatal(err)
	}
	want(t, mustSelect(t, s, 0), selectors.Event{Fd: a, Events: selectors.Write})
	Write(t, b, "x")
	want(t, mustSelect(t, s, time.Second), selectors.Event{Fd: a, Events: selectors.Read | selectors.Write})
}

func testLevel(t *testing.T, s selectors.Selector) {
	a, b := Pair(t)
	s.Register(a, selectors.Read)
	Write(t, b, "xy")
	ev := selectors.Event{Fd: a, Events: selectors.Read}
	want(t, mustSelect(t, s, time.Second), ev)
	want(t, mustSelect(t, s, 0), ev) // still ready: nothing was read
	unix.Read(a, make([]byte, 8))
	want(t, mustSelect(t, s, 0))
}

func testModify(t *testing.T, s selectors.Selector) {
	a, _ := Pair(t)
	s.Register(a, selectors.Read)
	want(t, mustSelect(t, s, 0))
	if err := s.Modify(a, selectors.Write); err != nil {
		t.Fatal(err)
	}
	want(t, mustSelect(t, s, 0), selectors.Event{Fd: a, Events: selectors.Write})
	s.Unregister(a)
	want(t, mustSelect(t, s, 0))
}

func testHangUp(t *testing.T, s selectors.Selector) {
	a, b := Pair(t)
	s.Register(a, selectors.Read)
	unix.Shutdown(b, unix.SHUT_WR)
	want(t, mustSelect(t, s, time.Second), selectors.Event{Fd: a, Events: selectors.Read})
}

func testMany(t *testing.T, s selectors.Selector) {
	var ready []selectors.Event
	for i := range 200 {
		a, b := Pair(t)
		if err := s.Register(a, selectors.Read); err != nil {
			t.Fatal(err)
		}
		if i%7 == 3 {
			Write(t, b, "z")
			ready = append(ready, selectors.Event{Fd: a, Events: selectors.Read})
		}
	}
	slices.SortFunc(ready, func(a, b selectors.Event) int { return a.Fd - b.Fd })
	want(t, mustSelect(t, s, time.Second), ready...)
}

// testTimeout: a Select with a timeout waits at least that long, and a
// timeout below the backend's Resolution at least the resolution (rounded
// up, never a busy 0 poll). Only lower bounds are asserted: a loaded
// machine may wake late, but a selector must never wake early.
func testTimeout(t *testing.T, s selectors.Selector) {
	a, _ := Pair(t)
	s.Register(a, selectors.Read)
	res := s.Resolution()
	if res <= 0 || res > time.Millisecond {
		t.Fatalf("Resolution() = %v; want 1ns..1ms", res)
	}
	for _, d := range []time.Duration{time.Nanosecond, res / 2, 300 * time.Microsecond, 2 * time.Millisecond} {
		if d <= 0 {
			continue
		}
		start := time.Now()
		want(t, mustSelect(t, s, d))
		if el := time.Since(start); el < max(d, res) {
			t.Fatalf("Select(%v) returned after %v (resolution %v)", d, el, res)
		}
	}
}

// testReuse closes a registered fd while another descriptor keeps its file
// open, reuses the number for a new socket, and makes the old file ready:
// only the new registration may report.
func testReuse(t *testing.T, s selectors.Selector) {
	a, b := Pair(t)
	keep := DupAbove(t, a, 100) // the old file stays open through keep
	s.Register(a, selectors.Read)
	unix.Close(a)
	if err := s.Unregister(a); err != nil {
		t.Fatalf("Unregister of a closed fd: %v", err)
	}
	c, d := Pair(t) // the lowest free number: a again, normally
	if c != a {
		t.Skipf("fd %d was not reused (got %d)", a, c)
	}
	_ = keep
	if err := s.Register(c, selectors.Read); err != nil {
		t.Fatal(err)
	}
	Write(t, b, "old")
	want(t, mustSelect(t, s, 10*time.Millisecond))
	Write(t, d, "new")
	want(t, mustSelect(t, s, time.Second), selectors.Event{Fd: c, Events: selectors.Read})
}

// testModifyReused reuses a registered fd's number for a new socket
// without Unregister (dup2 onto it, which closes the old file's fd and
// installs the new one at once, so no other test can take the number in
// between), while a duplicate keeps the old file open: Modify watches the
// new file, with every backend, and the old file's events are not reported.
func testModifyReused(t *testing.T, s selectors.Selector) {
	a, b := Pair(t)
	keep := DupAbove(t, a, 100)
	if err := s.Register(a, selectors.Read); err != nil {
		t.Fatal(err)
	}
	c, d := Pair(t)
	if err := unix.Dup2(c, a); err != nil {
		t.Fatal(err)
	}
	unix.CloseOnExec(a)
	_ = keep
	if err := s.Modify(a, selectors.Read); err != nil {
		t.Fatalf("Modify of a reused fd: %v", err)
	}
	Write(t, b, "old")
	want(t, mustSelect(t, s, 10*time.Millisecond))
	Write(t, d, "new")
	want(t, mustSelect(t, s, time.Second), selectors.Event{Fd: a, Events: selectors.Read})
}

func testHighFd(t *testing.T, s selectors.Selector, opt Options) {
	a, b := Pair(t)
	high := DupAbove(t, a, 1100)
	err := s.Register(high, selectors.Read)
	if opt.MaxFd > 0 {
		if !errors.Is(err, selectors.ErrFdTooLarge) {
			t.Fatalf("Register(fd %d) = %v, want ErrFdTooLarge", high, err)
		}
		return
	}
	if err != nil {
		t.Fatal(err)
	}
	Write(t, b, "h")
	want(t, mustSelect(t, s, time.Second), selectors.Event{Fd: high, Events: selectors.Read})
}

func testClosed(t *testing.T, s selectors.Selector) {
	a, _ := Pair(t)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
	if _, err := s.Select(0, nil); !errors.Is(err, selectors.ErrClosed) {
		t.Fatalf("Select after Close: %v", err)
	}
	if err := s.Register(a, selectors.Read); !errors.Is(err, selectors.ErrClosed) {
		t.Fatalf("Register after Close: %v", err)
	}
}
