// Package vclock is a virtual loop clock: time that stands still while
// callbacks run and moves only when the loop would wait, by exactly the
// time it would have waited, so that the earliest timer is due at once.
// A loop driven by it does the same iterations, with the same timers due
// in each, in every run, however fast or slow the machine: the
// differential check against asyncio replays schedules under it, and the
// instruction gate counts the timer workloads under it (bench). Hand a
// loop the clock's Now and Wrap through internal/loophook.
package vclock

import (
	"errors"
	"time"

	"github.com/loopbench/loopbench/selectors"
)

// ErrBlocked is a wait with no timeout that found nothing ready: under a
// virtual clock nothing could end it but another thread, which a
// deterministic run does not have.
var ErrBlocked = errors.New("vclock: the loop would block forever")

// Clock is a virtual clock, at 0 when made. It is not safe for concurrent
// use: the loop that owns it reads and moves it.
type Clock struct {
	now time.Duration
}

// Now is the clock's time.
func (c *Clock) Now() time.Duration { return c.now }

// Wrap returns inner whose Select never waits: it polls inner with a zero
// timeout, and when nothing is ready it moves the clock on by the timeout
// it was given (a positive one), or fails with ErrBlocked (a negative
// one, wait forever).
func (c *Clock) Wrap(inner selectors.Selector) selectors.Selector {
	return selector{inner, c}
}

// selector is a selector under a virtual clock.
type selector struct {
	selectors.Selector
	c *Clock
}

func (s selector) Select(timeout time.Duration, buf []selectors.Event) ([]selectors.Event, error) {
	evs, err := s.Selector.Select(0, buf)
	switch {
	case err != nil || len(evs) > 0:
	case timeout < 0:
		err = ErrBlocked
	case timeout > 0:
		s.c.now += timeout
	}
	return evs, err
}
