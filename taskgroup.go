package loopbench

import (
	"errors"
)

// TaskGroup is asyncio's TaskGroup: tasks started in a group are awaited
// together, and the first that fails cancels the others. Use it through
// WithTaskGroup. Its methods are for the loop's goroutine.
type TaskGroup struct {
	parent   *Task
	running  int
	tasks    []*Task // in creation order, done ones compacted away
	ndone    int     // done tasks still in tasks
	errs     []error
	aborting bool
	exiting  bool // the parent waits for the tasks
	finished bool
	// cancelledParent: a failure cancelled the parent, a cancellation
	// the group withdraws before it returns.
	cancelledParent bool
	allDone         *Future
}

// WithTaskGroup runs body with a new group in task t, then waits for every
// task body started in it: asyncio's `async with TaskGroup() as tg`. The
// first task that fails (body's own error counts too) cancels the others,
// and body at its next await. WithTaskGroup returns, once every task is
// done, the errors joined with errors.Join (asyncio's ExceptionGroup),
// cancellations left out; if t itself is cancelled meanwhile, the group's
// tasks are cancelled and it returns an error wrapping ErrCancelled, or,
// when tasks failed, their errors, and t gets the cancellation again at
// its next await (asyncio 3.13). A group may be nested in a task of
// another.
//
// A panic in body is a failure too: the group cancels its tasks and waits
// for them, as for an error, then panics again with the same value, so
// that no task outlives its group and the panic still ends t (as a
// *PanicError) unless a caller recovers it. A runtime.Goexit in body
// cancels the tasks but cannot wait for them.
func WithTaskGroup(t *Task, body func(g *TaskGroup) error) error {
	g := &TaskGroup{parent: t}
	p, err := g.callBody(body)
	var cancelled error
	switch {
	case p != nil:
		g.abort()
	case err == nil:
	case errors.Is(err, ErrCancelled):
		cancelled = err
		g.abort()
	default:
		g.errs = append(g.errs, err)
		g.abort()
	}
	g.exiting = true
	for g.running > 0 {
		g.allDone = t.fut.loop.CreateFuture()
		if _, err := t.Await(g.allDone); err != nil && !g.aborting {
			// t was cancelled while waiting: cancel the group, keep
			// waiting. (Once the group aborts, a cancellation here is
			// the failure's own, or comes again after, as asyncio's.)
			cancelled = err
			g.abort()
		}
	}
	g.finished = true
	if p != nil {
		panic(p.value)
	}
	if g.cancelledParent && t.Uncancel() == 0 {
		cancelled = nil // only the group's own cancellation reached body: withdrawn
	}
	if len(g.errs) > 0 {
		if t.Cancelling() > 0 {
			// A cancellation the wait swallowed: the task gets it again
			// at its next await, as asyncio does since 3.13.
			t.Uncancel()
			t.Cancel("")
		}
		return errors.Join(g.errs...)
	}
	return cancelled
}

// bodyPanic is a panic of a group's body, held while the group winds down.
type bodyPanic struct{ value any }

// callBody runs body and returns what it returned, or the panic it raised.
// A runtime.Goexit, and the unwinding Close makes of a suspended task,
// cannot be held: the first cancels the group's tasks on its way, the
// second leaves them to Close.
func (g *TaskGroup) callBody(body func(g *TaskGroup) error) (p *bodyPanic, err error) {
	returned := false
	defer func() {
		if returned {
			return
		}
		switch r := recover(); r {
		case nil: // runtime.Goexit
			g.abort()
		case stoppedSentinel:
			panic(r)
		default:
			p = &bodyPanic{r}
		}
	}()
	err = body(g)
	returned = true
	return nil, err
}

// CreateTask starts fn as a task of the group. It panics when the group
// has finished (asyncio raises RuntimeError).
func (g *TaskGroup) CreateTask(fn func(t *Task) (any, error)) *Task {
	if g.finished {
		panic("loopbench: TaskGroup.CreateTask after the group finished")
	}
	task := g.parent.fut.loop.CreateTask(fn)
	g.running++
	g.tasks = append(g.tasks, task)
	if g.aborting {
		task.Cancel("")
	}
	task.AddDoneCallback(func(f *Future) { g.taskDone(task, f) })
	return task
}

func (g *TaskGroup) taskDone(task *Task, f *Future) {
	g.running--
	if g.ndone++; g.ndone > len(g.tasks)/2 {
		g.compact()
	}
	if _, err := f.Result(); err != nil && !errors.Is(err, ErrCancelled) {
		g.errs = append(g.errs, err)
		if !g.aborting {
			g.abort()
			// Also while the parent waits for the tasks: it wakes and
			// waits again, as asyncio's TaskGroup has it.
			if g.parent.fut.state == pending {
				g.parent.Cancel("")
				g.cancelledParent = true
			}
		}
	}
	if g.exiting && g.running == 0 && g.allDone != nil && !g.allDone.Done() {
		g.allDone.SetResult(nil)
	}
}

// compact drops the done tasks, keeping the order: amortised O(1) per
// task, so a long-lived group holds only what still runs.
func (g *TaskGroup) compact() {
	live := g.tasks[:0]
	for _, task := range g.tasks {
		if !task.Done() {
			live = append(live, task)
		}
	}
	clear(g.tasks[len(live):])
	g.tasks, g.ndone = live, 0
}

// abort cancels every task of the group still running, in the order they
// were created.
func (g *TaskGroup) abort() {
	g.aborting = true
	for _, task := range g.tasks {
		task.Cancel("")
	}
}
