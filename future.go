package loopbench

import (
	"errors"
	"fmt"
)

// Future states, as asyncio's.
const (
	pending uint8 = iota
	cancelled
	finished
)

var stateNames = [...]string{"pending", "cancelled", "finished"}

// Future is the result of an operation that completes later on the loop,
// asyncio's Future: pending until SetResult, SetException or Cancel, then
// done for good (until Reset). Done callbacks always run through CallSoon,
// in the order they were added, also when added to a future already done.
// A Future belongs to its loop's goroutine.
type Future struct {
	// What an await round trip touches comes first, within one cache line.
	state    uint8
	ofTask   bool  // a task's future: only the task's function completes it
	wakeups  int32 // task wakeups scheduled, their Await not resumed yet
	loop     *Loop
	wakeStep func()         // the first callback, when it is a task's wakeup: its step
	wakeTok  CallbackToken  // its token
	cbs      []doneCallback // added after wakeStep, not scheduled yet
	result   any
	err      error

	tok    CallbackToken
	dueRun int // how many of due have run

	due      []doneCallback // scheduled through CallSoon, not run yet
	runDue   func()         // f.runNextDue, bound once
	onCancel canceller      // Cancel of a task, a gather or an operation
	waitIdx  int            // its index in a waitList's entries, while it waits in one
}

// Awaitable is what a task can await: a *Future or a *Task.
type Awaitable interface {
	future() *Future
}

func (f *Future) future() *Future { return f }

// canceller is what a future's Cancel defers to: its task, its gather,
// or the operation it stands for (cancelFunc). An interface rather than a
// func value, so that a task needs no method value allocated for it.
type canceller interface {
	Cancel(msg string) bool
}

// cancelFunc is a canceller that undoes an operation, then cancels its
// future.
type cancelFunc func(msg string) bool

func (c cancelFunc) Cancel(msg string) bool { return c(msg) }

// CallbackToken identifies a done callback for RemoveDoneCallback (Go funcs
// cannot be compared).
type CallbackToken uint64

type doneCallback struct {
	tok  CallbackToken
	fn   func(*Future)
	step func() // instead of fn: the step of a task awaiting the future
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
		return nil, errPendingResult
	}
	return f.result, f.err
}

var errPendingResult = fmt.Errorf("Result of a pending future: %w", ErrInvalidState)

// SetResult completes the future with v. ErrInvalidState if already done,
// or if f is a task's future: a task is completed by its function's return
// (asyncio's Task refuses set_result too).
func (f *Future) SetResult(v any) error {
	if f.state != pending || f.ofTask {
		return f.notPending("SetResult")
	}
	f.setResult(v)
	return nil
}

func (f *Future) setResult(v any) {
	f.result = v
	f.finish(finished)
}

// SetException completes the future with a non-nil err. ErrInvalidState if
// already done, or if f is a task's future (see SetResult).
func (f *Future) SetException(err error) error {
	if err == nil {
		return fmt.Errorf("SetException(nil): %w", ErrInvalidState)
	}
	if f.state != pending || f.ofTask {
		return f.notPending("SetException")
	}
	f.setException(err)
	return nil
}

func (f *Future) setException(err error) {
	f.err = err
	f.finish(finished)
}

// Cancel cancels a pending future and schedules its callbacks; msg, if not
// empty, is kept in the error. It returns false if the future was done.
// On a task's future it cancels the task (see Task.Cancel), on Gather's
// future the children.
func (f *Future) Cancel(msg string) bool {
	if f.onCancel != nil {
		return f.onCancel.Cancel(msg)
	}
	return f.cancel(msg)
}

// cancel is Future.Cancel without the task's part.
func (f *Future) cancel(msg string) bool {
	if f.state != pending {
		return false
	}
	f.err = cancelledError(msg)
	f.finish(cancelled)
	return true
}

// AddDoneCallback arranges for fn(f) to run through CallSoon once f is
// done, or on the next iteration if it is done already. Scheduling a
// prebuilt fn allocates nothing once the future's lists have grown.
func (f *Future) AddDoneCallback(fn func(*Future)) CallbackToken {
	return f.add(doneCallback{fn: fn})
}

// RunUntilComplete runs the loop until aw (a *Future or a *Task) is done
// and returns its result. If Stop ends the run first it returns
// ErrStoppedBeforeDone; the future is left as it is, and a later run can
// complete it.
func (l *Loop) RunUntilComplete(aw Awaitable) (any, error) {
	f := aw.future()
	if f.loop != l {
		return nil, errors.New("loopbench: RunUntilComplete: the future belongs to another loop")
	}
	if f.Done() {
		return l.runOnceFor(f)
	}
	// A pending future's done callback is only listed, not scheduled, so
	// a run refused (closed, or inside a running loop) leaves nothing.
	tok := f.AddDoneCallback(stopOnDone)
	err := l.RunForever()
	f.RemoveDoneCallback(tok)
	if err != nil {
		return nil, err
	}
	if !f.Done() {
		return nil, ErrStoppedBeforeDone
	}
	return f.Result()
}

// runOnceFor is RunUntilComplete of a future already done: one
// iteration, as asyncio's, where the done callback that stops the run is
// called soon. Stop before the run is that iteration; a run refused
// leaves the stop flag as it was, so no stray stop ends a run the caller
// is inside.
func (l *Loop) runOnceFor(f *Future) (any, error) {
	prev := l.c.stopping
	l.c.stopping = true
	if err := l.RunForever(); err != nil {
		l.c.stopping = prev
		return nil, err
	}
	return f.Result()
}

// stopOnDone is RunUntilComplete's done callback: it stops the loop of
// the future.
func stopOnDone(f *Future) { f.loop.c.stopping = true }

// tryWakeup registers step, the wakeup of a task awaiting f, if it can
// take the wakeStep field: f is pending with no other callback. The
// callback is the task's step itself, with no func(*Future) in between,
// and the common case, a single task awaiting the future, needs no list:
// wakeStep stays
// older than every entry of cbs, so callbacks still run in registration
// order. Otherwise the caller adds the wakeup to cbs.
func (f *Future) tryWakeup(step func()) (CallbackToken, bool) {
	if f.wakeStep != nil || len(f.cbs) > 0 || f.state != pending {
		return 0, false
	}
	f.tok++
	f.wakeStep, f.wakeTok = step, f.tok
	return f.tok, true
}

// woken is called by an awaiting task once resumed: scheduled tells
// whether its wakeup had been scheduled (and has now run).
func (f *Future) woken(scheduled bool) {
	if scheduled && f.wakeups > 0 {
		f.wakeups--
	}
}

func (f *Future) add(cb doneCallback) CallbackToken {
	f.tok++
	cb.tok = f.tok
	if f.state != pending {
		f.schedule(cb)
	} else {
		f.cbs = append(f.cbs, cb)
	}
	return f.tok
}

// RemoveDoneCallback removes the callback tok names, if it has not been
// scheduled yet, and reports whether it did.
func (f *Future) RemoveDoneCallback(tok CallbackToken) bool {
	if f.wakeStep != nil && f.wakeTok == tok {
		f.wakeStep = nil
		return true
	}
	for i, cb := range f.cbs {
		if cb.tok == tok {
			f.cbs = append(f.cbs[:i], f.cbs[i+1:]...)
			return true
		}
	}
	return false
}

// Reset returns a done future to pending, so that a hot path can await the
// same future again without allocating. It is ErrInvalidState while the
// future is pending or while done callbacks it scheduled have not run.
// A task's future is never reset: the task has ended for good. Reset is a
// loopbench extension: asyncio futures are done for good.
func (f *Future) Reset() error {
	if f.state == pending || len(f.due)|int(f.wakeups) != 0 || f.ofTask {
		return f.notResettable()
	}
	f.state, f.result, f.err = pending, nil, nil
	return nil
}

func (f *Future) notResettable() error {
	if f.ofTask {
		return fmt.Errorf("Reset of a task's future: %w", ErrInvalidState)
	}
	return fmt.Errorf("Reset of a %s future with %d callbacks to run: %w",
		stateNames[f.state], len(f.due)-f.dueRun+int(f.wakeups), ErrInvalidState)
}

func (f *Future) notPending(op string) error {
	if f.ofTask && f.state == pending {
		return fmt.Errorf("%s on a task's future: a task ends when its function returns: %w", op, ErrInvalidState)
	}
	return fmt.Errorf("%s on a %s future: %w", op, stateNames[f.state], ErrInvalidState)
}

func (f *Future) finish(state uint8) {
	f.state = state
	if step := f.wakeStep; step != nil {
		f.wakeStep = nil
		f.wakeups++
		f.loop.CallSoon(step)
	}
	if len(f.cbs) == 0 {
		return
	}
	for _, cb := range f.cbs {
		f.schedule(cb)
	}
	clear(f.cbs)
	f.cbs = f.cbs[:0]
}

// schedule queues cb to run through CallSoon. A task's wakeup is its
// step; other callbacks wait in f.due, in order, and one bound func runs
// the next of them, so scheduling allocates no closure. Each callback has
// one CallSoon entry in registration order, so they run in that order.
func (f *Future) schedule(cb doneCallback) {
	if cb.step != nil {
		f.wakeups++
		f.loop.CallSoon(cb.step)
		return
	}
	f.bindRunDue()
	f.due = append(f.due, cb)
	f.loop.CallSoon(f.runDue)
}

func (f *Future) bindRunDue() {
	if f.runDue == nil {
		f.runDue = f.runNextDue
	}
}

// runNextDue runs the oldest due callback. The list is cleared once all
// have run, so the callbacks can be collected.
func (f *Future) runNextDue() {
	cb := f.due[f.dueRun]
	if f.dueRun++; f.dueRun == len(f.due) {
		clear(f.due)
		f.due, f.dueRun = f.due[:0], 0
	}
	cb.fn(f)
}

func (f *Future) String() string {
	return fmt.Sprintf("Future(%s)", stateNames[f.state])
}
