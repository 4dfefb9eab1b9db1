package seltest

import (
	"errors"
	"testing"
	"time"

	"github.com/loopbench/loopbench/selectors"
	"golang.org/x/sys/unix"
)

// testOneshot: a Oneshot registration reports one Select's event, then
// nothing until Modify arms it again, whatever the fd's readiness; a
// registration without Oneshot is level-triggered again.
func testOneshot(t *testing.T, s selectors.Selector) {
	a, b := Pair(t)
	r := selectors.Event{Fd: a, Events: selectors.Read}
	for _, ev := range []selectors.Events{selectors.Oneshot, selectors.Read | selectors.Write | selectors.Oneshot} {
		if err := s.Register(a, ev); !errors.Is(err, selectors.ErrBadEvents) {
			t.Fatalf("Register(%v) = %v, want ErrBadEvents", ev, err)
		}
	}
	if err := s.Register(a, selectors.Read|selectors.Oneshot); err != nil {
		t.Fatal(err)
	}
	want(t, mustSelect(t, s, 0))
	Write(t, b, "x") // never drained: level-triggered would report every time
	want(t, mustSelect(t, s, time.Second), r)
	want(t, mustSelect(t, s, 0))
	want(t, mustSelect(t, s, 0))
	if err := s.Modify(a, selectors.Read|selectors.Oneshot); err != nil {
		t.Fatal(err)
	}
	want(t, mustSelect(t, s, time.Second), r)
	want(t, mustSelect(t, s, 0))
	if err := s.Modify(a, selectors.Read); err != nil {
		t.Fatal(err)
	}
	want(t, mustSelect(t, s, time.Second), r)
	want(t, mustSelect(t, s, 0), r)
	if err := s.Modify(a, selectors.Write|selectors.Oneshot); err != nil {
		t.Fatal(err)
	}
	want(t, mustSelect(t, s, time.Second), selectors.Event{Fd: a, Events: selectors.Write})
	want(t, mustSelect(t, s, 0))
	if err := s.Unregister(a); err != nil {
		t.Fatalf("Unregister of a oneshot registration that reported: %v", err)
	}
}

// testOneshotHangUp: a hang-up reports once on a Oneshot registration,
// as its registered event, and then the fd is quiet until re-armed.
func testOneshotHangUp(t *testing.T, s selectors.Selector) {
	a, b := Pair(t)
	if err := s.Register(a, selectors.Read|selectors.Oneshot); err != nil {
		t.Fatal(err)
	}
	unix.Close(b)
	want(t, mustSelect(t, s, time.Second), selectors.Event{Fd: a, Events: selectors.Read})
	want(t, mustSelect(t, s, 0))
	if err := s.Modify(a, selectors.Read|selectors.Oneshot); err != nil {
		t.Fatal(err)
	}
	want(t, mustSelect(t, s, time.Second), selectors.Event{Fd: a, Events: selectors.Read})
}

// testOneshotClosedDisarmed closes a disarmed fd while a duplicate keeps
// its file open, and puts a new socket at the number (dup2): the old file
// never reports, and Modify arms the new one.
func testOneshotClosedDisarmed(t *testing.T, s selectors.Selector) {
	a, b := Pair(t)
	keep := DupAbove(t, a, 100)
	if err := s.Register(a, selectors.Read|selectors.Oneshot); err != nil {
		t.Fatal(err)
	}
	Write(t, b, "x")
	want(t, mustSelect(t, s, time.Second), selectors.Event{Fd: a, Events: selectors.Read})
	c, d := Pair(t)
	if err := unix.Dup2(c, a); err != nil {
		t.Fatal(err)
	}
	unix.CloseOnExec(a)
	_ = keep
	Write(t, b, "old")
	want(t, mustSelect(t, s, 10*time.Millisecond))
	if err := s.Modify(a, selectors.Read|selectors.Oneshot); err != nil {
		t.Fatalf("Modify of a reused fd: %v", err)
	}
	want(t, mustSelect(t, s, 10*time.Millisecond))
	Write(t, d, "new")
	want(t, mustSelect(t, s, time.Second), selectors.Event{Fd: a, Events: selectors.Read})
}
