package loopbench

import (
	"errors"
	"fmt"
)

// flow is the write side's flow control as a StreamWriter sees it:
// whether the transport paused its protocol, whether the connection is
// lost, and the tasks waiting in Drain (asyncio's FlowControlMixin).
type flow struct {
	loop    *Loop
	paused  bool
	lost    bool
	lostErr error
	waiters []*Future
	closed  *Future // done once the connection is lost
}

func newFlow(l *Loop) *flow { return &flow{loop: l, closed: l.CreateFuture()} }

func (f *flow) pause() { f.paused = true }

func (f *flow) resume() {
	f.paused = false
	f.wakeAll()
}

func (f *flow) connectionLost(err error) {
	f.lost, f.lostErr = true, err
	f.wakeAll()
	if !f.closed.Done() {
		if err != nil {
			f.closed.SetException(err)
		} else {
			f.closed.SetResult(nil)
		}
	}
}

func (f *flow) wakeAll() {
	for _, w := range f.waiters {
		if !w.Done() {
			w.SetResult(nil)
		}
	}
	f.waiters = f.waiters[:0]
}

// drain waits while writing is paused. A connection lost before the
// call is ErrConnectionLost; one lost while it waits ends the wait with
// the loss's error, nil for a clean close, as asyncio's _drain_helper.
func (f *flow) drain(t *Task) error {
	if f.lost {
		switch {
		case f.lostErr == nil:
			return ErrConnectionLost
		case errors.Is(f.lostErr, ErrConnectionLost):
			return f.lostErr
		}
		return fmt.Errorf("%w: %w", ErrConnectionLost, f.lostErr)
	}
	for f.paused {
		w := f.loop.CreateFuture()
		f.waiters = append(f.waiters, w)
		if _, err := t.Await(w); err != nil {
			return err
		}
		if f.lost {
			return f.lostErr
		}
	}
	return nil
}
