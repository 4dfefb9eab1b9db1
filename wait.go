package loopbench

import (
	"errors"
	"fmt"
	"iter"
	"time"
)

// WaitMode is when Wait returns: asyncio's return_when.
type WaitMode int

const (
	// AllCompleted returns when every future is done.
	AllCompleted WaitMode = iota
	// FirstCompleted returns when any is done.
	FirstCompleted
	// FirstException returns when any fails (or every one is done).
	FirstException
)

// Wait waits for futs until mode is met or timeout passes, and returns
// the futures done and those still pending, each in the order given:
// asyncio.wait. Never is no timeout; a timeout of 0 (or less) returns at
// once with the futures as they are, as asyncio's timeout=0 does. It
// cancels nothing; it returns an error only when t is cancelled.
func Wait(t *Task, futs []Awaitable, mode WaitMode, timeout time.Duration) (done, pending []*Future, err error) {
	fs := make([]*Future, len(futs))
	for i, a := range futs {
		fs[i] = a.future()
	}
	// Counted as they finish, so that a completion costs O(1), not a
	// scan of every future.
	ndone, failed := 0, false
	note := func(f *Future) {
		ndone++
		failed = failed || !f.Cancelled() && f.err != nil
	}
	met := func() bool {
		switch {
		case mode == FirstCompleted && ndone > 0, mode == FirstException && failed:
			return true
		}
		return ndone == len(fs)
	}
	for _, f := range fs {
		if f.Done() {
			note(f)
		}
	}
	if !met() && len(fs) > 0 && timeout > 0 {
		if err := awaitMet(t, fs, timeout, note, met); err != nil {
			return nil, nil, err
		}
	}
	for _, f := range fs {
		if f.Done() {
			done = append(done, f)
		} else {
			pending = append(pending, f)
		}
	}
	return done, pending, nil
}

// awaitMet suspends t until met, checked as each of fs finishes (note
// counts it), or until timeout passes (Never: no limit).
func awaitMet(t *Task, fs []*Future, timeout time.Duration, note func(*Future), met func() bool) error {
	w := t.fut.loop.CreateFuture()
	check := func(f *Future) {
		note(f)
		if !w.Done() && met() {
			w.SetResult(nil)
		}
	}
	toks := make([]CallbackToken, len(fs))
	for i, f := range fs {
		if !f.Done() {
			toks[i] = f.AddDoneCallback(check)
		}
	}
	var h TimerHandle
	if timeout != Never {
		h = t.fut.loop.CallLater(timeout, func() {
			if !w.Done() {
				w.SetResult(nil)
			}
		})
	}
	_, err := t.Await(w)
	h.Cancel()
	for i, f := range fs {
		if toks[i] != 0 {
			f.RemoveDoneCallback(toks[i])
		}
	}
	return err
}

// AsCompleted yields futs as they complete, earliest first, suspending t
// between them: asyncio.as_completed. If t is cancelled while it waits,
// it yields (nil, the error) and stops.
func AsCompleted(t *Task, futs ...Awaitable) iter.Seq2[*Future, error] {
	return func(yield func(*Future, error) bool) {
		var ready []*Future
		var w *Future
		toks := make([]CallbackToken, len(futs))
		fs := make([]*Future, len(futs))
		for i, a := range futs {
			fs[i] = a.future()
			toks[i] = fs[i].AddDoneCallback(func(f *Future) {
				ready = append(ready, f)
				if w != nil && !w.Done() {
					w.SetResult(nil)
				}
			})
		}
		defer func() {
			for i, f := range fs {
				f.RemoveDoneCallback(toks[i])
			}
		}()
		for left := len(fs); left > 0; {
			if len(ready) == 0 {
				w = t.fut.loop.CreateFuture()
				if _, err := t.Await(w); err != nil {
					yield(nil, err)
					return
				}
				continue
			}
			f := ready[0]
			ready = ready[1:]
			left--
			if !yield(f, nil) {
				return
			}
		}
	}
}

// Shield returns a future that completes as aw does, but whose
// cancellation does not cancel aw: asyncio.shield. (Cancelling the
// shield cancels only the shield.)
func Shield(l *Loop, aw Awaitable) *Future {
	inner := aw.future()
	if inner.Done() {
		return inner
	}
	outer := l.CreateFuture()
	inner.AddDoneCallback(func(f *Future) {
		if outer.Done() {
			return
		}
		switch v, err := f.Result(); {
		case f.Cancelled():
			outer.cancel(cancelMessage(err))
		case err != nil:
			outer.SetException(err)
		default:
			outer.SetResult(v)
		}
	})
	return outer
}

// TimeoutScope is the deadline of WithTimeout: asyncio.timeout's context
// manager.
type TimeoutScope struct {
	t       *Task
	when    time.Duration
	h       TimerHandle
	expired bool
	done    bool
}

// WithTimeout runs body in task t with a deadline d from now (Never, or a
// d past the clock's range, is none): when it
// passes, t is cancelled, so the await in progress returns ErrCancelled,
// and WithTimeout returns an error wrapping ErrTimeout instead (and not
// ErrCancelled, which would end the task cancelled), as asyncio.timeout
// turns CancelledError into TimeoutError. A cancellation from elsewhere
// still returns ErrCancelled.
func WithTimeout(t *Task, d time.Duration, body func(s *TimeoutScope) error) error {
	return WithTimeoutAt(t, addClock(t.fut.loop.Time(), d), body)
}

// WithTimeoutAt is WithTimeout with a deadline on the loop clock.
func WithTimeoutAt(t *Task, when time.Duration, body func(s *TimeoutScope) error) error {
	s := &TimeoutScope{t: t}
	base := t.Cancelling()
	s.Reschedule(when)
	err := body(s)
	s.done = true
	s.h.Cancel()
	if s.expired && t.Uncancel() <= base && errors.Is(err, ErrCancelled) {
		return fmt.Errorf("%w: deadline %v on the loop clock passed", ErrTimeout, s.when)
	}
	return err
}

// Reschedule moves the deadline to when on the loop clock; Never removes
// it. A deadline already passed cancels at once (on the next iteration).
func (s *TimeoutScope) Reschedule(when time.Duration) {
	if s.done || s.expired {
		return
	}
	s.h.Cancel()
	s.when = when
	if when == Never {
		return
	}
	s.h = s.t.fut.loop.CallAt(when, s.expire)
}

func (s *TimeoutScope) expire() {
	if s.done || s.expired {
		return
	}
	s.expired = true
	s.t.Cancel("timeout")
}

// When returns the deadline on the loop clock (Never for none).
func (s *TimeoutScope) When() time.Duration { return s.when }

// Expired reports whether the deadline passed and cancelled the task.
func (s *TimeoutScope) Expired() bool { return s.expired }
