package loopbench

import (
	"context"
	"errors"
	"fmt"
	"runtime/debug"
	"time"
)

// Task runs a function as a coroutine on the loop, asyncio's Task. The
// function runs on a runtime coroutine (iter.Pull): t.Await(f) switches
// back to the loop until f is done, and the loop switches back into the
// function from f's done callback, as asyncio's Task.__step and
// __wakeup do. A Task has a Future's reading side (Done, Cancelled,
// Result, done callbacks) for the function's result, which only the
// function completes: it has no SetResult, SetException or Reset (asyncio's
// Task refuses them), and on its Future those return ErrInvalidState.
//
// Await, Sleep and the helpers that take a *Task may only be called from
// that task's own function, on the loop's goroutine.
type Task struct {
	// What a resumption touches comes first, with the embedded future's
	// state, within one cache line.
	running    bool // the function is executing (not suspended)
	started    bool
	mustCancel bool                    // cancel at the next resumption (asyncio's _must_cancel)
	next       func() (struct{}, bool) // resume the function: co.next, kept in this line
	yield      func(struct{}) bool     // suspend it (inside the function)
	waiter     *Future                 // the future the function is awaiting
	stepFn     func()                  // bindStep's closure: also the wakeup of an awaited future
	resumeErr  error                   // what the suspended call returns when resumed

	fut Future // the task's result, which only its function completes

	fn                 func(t *Task) (any, error)
	co                 *coroutine // runs fn
	cancelMsg          string
	ncancels           int     // cancellation requests (Cancelling)
	sleepF             *Future // reused by Sleep
	sleepFn            func()  // completes sleepF, bound once
	op                 *sockOp // reused by SockRecvInto and SockSendAll
	prevTask, nextTask *Task   // the loop's list of unfinished tasks

	ctx       context.Context // Context, made on first use
	ctxCancel context.CancelCauseFunc
}

// Errors of the task layer.
var (
	ErrGoexit       = errors.New("loopbench: runtime.Goexit called in a task")
	errNotInTask    = errors.New("loopbench: Await called outside the task's own function")
	errOtherLoop    = errors.New("loopbench: awaiting a future of another loop")
	errAwaitItself  = errors.New("loopbench: a task cannot await itself")
	stoppedSentinel = &stoppedPanic{}
)

type stoppedPanic struct{}

// CreateTask schedules fn to run as a task; its first step runs on the
// next iteration, never inside CreateTask. fn runs on a coroutine that a
// finished task left idle in the loop's pool, or on a new one: a task that
// ends, other than by runtime.Goexit, parks its coroutine for the next,
// up to 128 idle; Close ends them. Goroutine-local state therefore
// outlives a task: profiler labels a function sets with
// pprof.SetGoroutineLabels stay on its coroutine for the next task run
// there, and a new coroutine starts with the labels of CreateTask's
// caller. A function that labels its work uses pprof.Do, which restores
// the labels it found.
func (l *Loop) CreateTask(fn func(t *Task) (any, error)) *Task {
	if l.c.closed.Load() {
		panic(closedError("CreateTask"))
	}
	t := &Task{fn: fn}
	t.fut.loop = l
	t.fut.ofTask = true
	t.fut.onCancel = t
	t.stepFn = t.bindStep()
	t.co = l.c.takeCoroutine(t)
	t.next = t.co.next
	l.c.addTask(t)
	l.CallSoon(t.stepFn)
	return t
}

// bindStep returns the task's step, asyncio's Task.__step (and, as the
// done callback of an awaited future, __wakeup): it resumes the function
// until it suspends or returns. The common case (a started task, nothing
// to deliver) is in the closure itself, with resume inlined, so that from
// the loop's dispatch to the coroutine switch there is one frame: each
// frame between them would cost a mispredicted return, the return stack
// being lost with the switch. bindStep itself is kept out of line: when
// it was inlined into CreateTask, the copy of the closure compiled there
// called resume instead of inlining it.
//
//go:noinline
func (t *Task) bindStep() func() {
	return func() {
		if t.fut.state != pending || t.running || t.mustCancel || !t.started {
			t.stepSlow()
			return
		}
		t.resume()
	}
}

// stepSlow is the step of a task not started yet, done, or with a
// cancellation to deliver.
func (t *Task) stepSlow() {
	if t.fut.state != pending || t.running {
		return
	}
	if t.mustCancel {
		t.mustCancel = false
		if !t.started {
			// Cancelled before it ever ran: the function never starts.
			t.started = true
			if co := t.detach(); !t.fut.loop.c.parkCoroutine(co) {
				co.stop()
			}
			t.finishTask(nil, cancelledError(t.cancelMsg))
			return
		}
		t.resumeErr = cancelledError(t.cancelMsg)
	}
	t.started = true
	t.resume()
}

// resume switches into the function until it suspends or returns; Await
// and Sleep are valid only while running is set. A runtime.Goexit in the
// function comes back as a panic with goexitSentinel (see runFunction),
// which the loop's dispatch absorbs: the task has already failed with
// ErrGoexit.
func (t *Task) resume() {
	t.running = true
	t.next()
	t.running = false
}

// runOn runs t's function on its coroutine (the coroutine's job), and
// parks the coroutine in the pool when the function is done with it.
func (t *Task) runOn(yield func(struct{}) bool) bool {
	t.yield = yield
	return t.runFunction() && t.fut.loop.c.parkCoroutine(t.detach())
}

// detach takes the coroutine from a task that is done with it, so that
// nothing the task still holds can resume the coroutine's next task.
func (t *Task) detach() *coroutine {
	co := t.co
	t.co, t.next = nil, nil
	return co
}

// runFunction runs the task's function on its coroutine and completes the
// task with what it returns, or with the panic it raised. It reports
// whether the coroutine can run another task: not once Close has stopped
// it. A Goexit cannot be stopped, but its unwinding is turned into a panic
// that iter.Pull carries to resume, so it never ends the loop's goroutine;
// the coroutine ends with it.
func (t *Task) runFunction() (reusable bool) {
	returned := false
	defer func() {
		if returned {
			return
		}
		switch r := recover(); r {
		case nil:
			t.running = false
			t.finishTask(nil, ErrGoexit)
			panic(goexitSentinel)
		case stoppedSentinel:
			t.finishTask(nil, cancelledError("loop closed"))
		default:
			t.finishTask(nil, &PanicError{Value: r, Stack: debug.Stack()})
			reusable = true
		}
	}()
	res, err := t.fn(t)
	returned = true
	t.finishTask(res, err)
	return true
}

// PanicError is the error of a task whose function panicked.
type PanicError struct {
	Value any
	Stack []byte
}

func (e *PanicError) Error() string { return fmt.Sprintf("loopbench: task panicked: %v", e.Value) }

// Unwrap returns the panic value if it is an error.
func (e *PanicError) Unwrap() error {
	err, _ := e.Value.(error)
	return err
}

// finishTask completes the task's future with what its function returned:
// asyncio's handling of StopIteration and CancelledError in __step.
func (t *Task) finishTask(res any, err error) {
	t.fut.loop.c.removeTask(t)
	if t.ctxCancel != nil {
		t.ctxCancel(nil)
	}
	switch {
	case t.fut.state != pending:
	case t.mustCancel:
		t.mustCancel = false
		t.fut.cancel(t.cancelMsg)
	case errors.Is(err, ErrCancelled):
		t.fut.cancel(cancelMessage(err))
	case err != nil:
		t.fut.setException(err)
	default:
		t.fut.setResult(res)
	}
}

// suspend switches back to the loop until the task is resumed. If Close
// stops the task meanwhile, it unwinds the function.
func (t *Task) suspend() {
	if !t.yield(struct{}{}) {
		panic(stoppedSentinel)
	}
}

// takeResumeErr returns, once, the error the resumption carries.
func (t *Task) takeResumeErr() error {
	err := t.resumeErr
	t.resumeErr = nil
	return err
}

// Await suspends the task until aw is done and returns its result. Awaiting
// a future that is already done does not switch. If the task is cancelled
// while it waits, the awaited future is cancelled and Await returns an
// error wrapping ErrCancelled; a task that handles it and returns normally
// is not cancelled. Await may only be called from the task's own function.
func (t *Task) Await(aw Awaitable) (any, error) {
	f, ok := aw.(*Future) // the common case, without the interface call
	if !ok {
		f = aw.future()
	}
	switch {
	case !t.running:
		return nil, errNotInTask
	case f.loop != t.fut.loop:
		return nil, errOtherLoop
	case f == &t.fut:
		return nil, errAwaitItself
	}
	if f.state != pending {
		return f.Result()
	}
	t.waiter = f
	tok, ok := f.tryWakeup(t.stepFn)
	if !ok {
		tok = f.add(doneCallback{step: t.stepFn})
	}
	if t.mustCancel && f.Cancel(t.cancelMsg) {
		t.mustCancel = false
	}
	t.suspend()
	t.waiter = nil
	if t.resumeErr != nil {
		f.woken(!f.RemoveDoneCallback(tok))
		return nil, t.takeResumeErr()
	}
	f.woken(true)
	return f.Result()
}

// Sleep suspends task t for d: asyncio.sleep. Sleep(t, 0) (or a negative
// d) yields exactly one loop iteration and uses no timer. It returns an
// error wrapping ErrCancelled if t is cancelled meanwhile.
func Sleep(t *Task, d time.Duration) error {
	if !t.running {
		return errNotInTask
	}
	if d <= 0 {
		t.fut.loop.CallSoon(t.stepFn)
		t.suspend()
		return t.takeResumeErr()
	}
	if t.sleepF == nil {
		t.sleepF = t.fut.loop.CreateFuture()
		t.sleepFn = func() { t.sleepF.SetResult(nil) }
	} else if err := t.sleepF.Reset(); err != nil {
		t.sleepF = t.fut.loop.CreateFuture() // a cancelled sleep's callbacks are still due
		t.sleepFn = func() { t.sleepF.SetResult(nil) }
	}
	h := t.fut.loop.CallLater(d, t.sleepFn)
	_, err := t.Await(t.sleepF)
	h.Cancel()
	return err
}

// Sleep is Sleep(t, d).
//
// Deprecated: asyncio.sleep is a module function; use the package's Sleep
// (see the package doc for which calls are methods).
func (t *Task) Sleep(d time.Duration) error { return Sleep(t, d) }

// Cancel requests the task's cancellation: the future it awaits is
// cancelled, so its Await returns ErrCancelled; a task not waiting sees
// ErrCancelled at its next Await or Sleep. It returns false if the task
// is done. Each request counts (Cancelling).
func (t *Task) Cancel(msg string) bool {
	if t.fut.state != pending {
		return false
	}
	t.ncancels++
	if t.ctxCancel != nil {
		t.ctxCancel(cancelledError(msg))
	}
	if w := t.waiter; w != nil && w.Cancel(msg) {
		return true
	}
	t.mustCancel = true
	t.cancelMsg = msg
	return true
}

// Cancelling returns the number of pending cancellation requests, as
// asyncio's Task.cancelling.
func (t *Task) Cancelling() int { return t.ncancels }

// Uncancel decrements the count of cancellation requests and returns it,
// as asyncio's Task.uncancel. The call that brings the count to zero also
// withdraws a cancellation not delivered yet, as asyncio does since 3.13.
func (t *Task) Uncancel() int {
	if t.ncancels > 0 {
		if t.ncancels--; t.ncancels == 0 {
			t.mustCancel = false
			// The withdrawn cancellation ended the context it cancelled;
			// the next Context call makes a live one.
			t.ctx, t.ctxCancel = nil, nil
		}
	}
	return t.ncancels
}

// Done reports whether the task's function has returned (or the task was
// cancelled before it started).
func (t *Task) Done() bool { return t.fut.Done() }

// Cancelled reports whether the task ended cancelled.
func (t *Task) Cancelled() bool { return t.fut.Cancelled() }

// Result returns what the task's function returned: ErrInvalidState while
// it runs, a *CancelledError once the task is cancelled.
func (t *Task) Result() (any, error) { return t.fut.Result() }

// AddDoneCallback arranges for fn(t.Future()) to run through CallSoon once
// the task is done (see Future.AddDoneCallback).
func (t *Task) AddDoneCallback(fn func(*Future)) CallbackToken { return t.fut.AddDoneCallback(fn) }

// RemoveDoneCallback removes the callback tok names, if it has not been
// scheduled yet, and reports whether it did.
func (t *Task) RemoveDoneCallback(tok CallbackToken) bool { return t.fut.RemoveDoneCallback(tok) }

// Loop returns the loop the task runs on.
func (t *Task) Loop() *Loop { return t.fut.loop }

// Future returns the task's future: what Wait and AsCompleted give back
// for the task, and what its done callbacks receive. Only the task's
// function completes it: its SetResult, SetException and Reset return
// ErrInvalidState, which is why a Task does not have them.
func (t *Task) Future() *Future { return &t.fut }

func (t *Task) future() *Future { return &t.fut }

func (t *Task) String() string {
	return fmt.Sprintf("Task(%s)", stateNames[t.fut.state])
}

// --- the loop's unfinished tasks -------------------------------------------

// taskList is the loop's part that lists its unfinished tasks.
type taskList struct{ head *Task }

// tasks is the loop's list of unfinished tasks.
func (c *core) tasks() *taskList { return c.parts[partTasks].(*taskList) }

func (c *core) addTask(t *Task) {
	l := c.tasks()
	t.nextTask = l.head
	if l.head != nil {
		l.head.prevTask = t
	}
	l.head = t
}

func (c *core) removeTask(t *Task) { c.tasks().remove(t) }

func (l *taskList) remove(t *Task) {
	if t.prevTask == nil && l.head != t {
		return // not listed
	}
	if t.prevTask != nil {
		t.prevTask.nextTask = t.nextTask
	} else {
		l.head = t.nextTask
	}
	if t.nextTask != nil {
		t.nextTask.prevTask = t.prevTask
	}
	t.prevTask, t.nextTask = nil, nil
}

// closePart stops every unfinished task's coroutine, at Close, so that
// no goroutine outlives the loop: a suspended function unwinds from its
// Await, and each task ends cancelled.
func (l *taskList) closePart() {
	for l.head != nil {
		t := l.head
		l.remove(t)
		t.started = true
		stopCoroutine(t.co.stop)
		if t.fut.state == pending {
			t.fut.cancel("loop closed")
		}
	}
}

// stopCoroutine calls stop, absorbing the panic a Goexit in the function
// turns into (see Task.runFunction).
func stopCoroutine(stop func()) {
	defer func() {
		if r := recover(); r != nil && r != goexitSentinel {
			panic(r)
		}
	}()
	stop()
}
