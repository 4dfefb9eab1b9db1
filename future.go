package loopbench

import "fmt"

// Future states, as asyncio's.
const (
	pending uint8 = iota
	cancelled
	finished
)

var stateNames = [...]string{"pending", "cancelled", "finished"}

// Future is the result of an operation that completes later on the loop,
// asyncio's Future: pending until SetResult, SetException or Cancel, then
// done for good. Done callbacks always run through CallSoon, in the order
// they were added, also when added to a future already done. A Future
// belongs to its loop's goroutine.
type Future struct {
	loop   *Loop
	state  uint8
	result any
	err    error
	cbs    []doneCallback
	tok    CallbackToken
}

// CallbackToken identifies a done callback for RemoveDoneCallback (Go funcs
// cannot be compared).
type CallbackToken uint64

type doneCallback struct {
	tok CallbackToken
	fn  func(*Future)
}

// CreateFuture returns a pending future bound to l.
func (l *Loop) CreateFuture() *Future {
	if l.c.closed.Load() {
		panic(closedError("CreateFuture"))
	}
	return &Future{loop: l}
}

// Loop returns the loop the future belongs to.
func (f *Future) Loop() *Loop { return f.loop }

// Done reports whether the future has a result, an error, or was cancelled.
func (f *Future) Done() bool { return f.state != pending }

// Cancelled reports whether the future was cancelled.
func (f *Future) Cancelled() bool { return f.state == cancelled }

// Result returns the result and error the future was completed with. It
// returns ErrInvalidState while pending and an error wrapping ErrCancelled
// once cancelled.
func (f *Future) Result() (any, error) {
	if f.state == pending {
		return nil, fmt.Errorf("Result of a pending future: %w", ErrInvalidState)
	}
	return f.result, f.err
}

// SetResult completes the future with v. ErrInvalidState if already done.
func (f *Future) SetResult(v any) error {
	if err := f.checkPending("SetResult"); err != nil {
		return err
	}
	f.result = v
	f.finish(finished)
	return nil
}

// SetException completes the future with a non-nil err. ErrInvalidState if
// already done.
func (f *Future) SetException(err error) error {
	if err == nil {
		return fmt.Errorf("SetException(nil): %w", ErrInvalidState)
	}
	if e := f.checkPending("SetException"); e != nil {
		return e
	}
	f.err = err
	f.finish(finished)
	return nil
}

// Cancel cancels a pending future and schedules its callbacks; msg, if not
// empty, is kept in the error. It returns false if the future was done.
func (f *Future) Cancel(msg string) bool {
	if f.state != pending {
		return false
	}
	f.err = ErrCancelled
	if msg != "" {
		f.err = fmt.Errorf("%w: %s", ErrCancelled, msg)
	}
	f.finish(cancelled)
	return true
}

// AddDoneCallback arranges for fn(f) to run through CallSoon once f is
// done, or on the next iteration if it is done already.
func (f *Future) AddDoneCallback(fn func(*Future)) CallbackToken {
	f.tok++
	if f.state != pending {
		f.schedule(fn)
		return f.tok
	}
	f.cbs = append(f.cbs, doneCallback{tok: f.tok, fn: fn})
	return f.tok
}

// RemoveDoneCallback removes the callback tok names, if it has not been
// scheduled yet, and reports whether it did.
func (f *Future) RemoveDoneCallback(tok CallbackToken) bool {
	for i, cb := range f.cbs {
		if cb.tok == tok {
			f.cbs = append(f.cbs[:i], f.cbs[i+1:]...)
			return true
		}
	}
	return false
}

func (f *Future) checkPending(op string) error {
	if f.state != pending {
		return fmt.Errorf("%s on a %s future: %w", op, stateNames[f.state], ErrInvalidState)
	}
	return nil
}

func (f *Future) finish(state uint8) {
	f.state = state
	cbs := f.cbs
	f.cbs = nil
	for _, cb := range cbs {
		f.schedule(cb.fn)
	}
}

func (f *Future) schedule(fn func(*Future)) {
	f.loop.CallSoon(func() { fn(f) })
}

func (f *Future) String() string {
	return fmt.Sprintf("Future(%s)", stateNames[f.state])
}
