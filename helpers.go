package loopbench

import "time"

// Gather returns a future for all of futs (futures or tasks of l): its
// result is a []any of their results in argument order. The first error
// (or cancellation) among them becomes the gather's error at once; the
// others go on. Cancelling the gather cancels every child that is not
// done; the gather then ends with ErrCancelled once they have finished.
// asyncio.gather(*futs).
func Gather(l *Loop, futs ...Awaitable) *Future { return gather(l, false, futs) }

// GatherErrors is Gather collecting errors instead of failing: each
// child's error (or ErrCancelled) takes its place in the results.
// asyncio.gather(*futs, return_exceptions=True).
func GatherErrors(l *Loop, futs ...Awaitable) *Future { return gather(l, true, futs) }

// gathering is the state of one Gather.
type gathering struct {
	outer           *Future
	children        []*Future
	finished        int
	collect         bool
	cancelRequested bool
}

func gather(l *Loop, collect bool, futs []Awaitable) *Future {
	g := &gathering{outer: l.CreateFuture(), collect: collect}
	for _, aw := range futs {
		f := aw.future()
		if f.loop != l {
			g.outer.SetException(errOtherLoop)
			return g.outer
		}
		g.children = append(g.children, f)
	}
	if len(g.children) == 0 {
		g.outer.SetResult([]any{})
		return g.outer
	}
	g.outer.onCancel = g
	for _, f := range g.children {
		f.AddDoneCallback(g.childDone)
	}
	return g.outer
}

// Cancel is the gather's Cancel: it cancels the children, asyncio's
// _GatheringFuture.cancel.
func (g *gathering) Cancel(msg string) bool {
	if g.outer.Done() {
		return false
	}
	ret := false
	for _, f := range g.children {
		if f.Cancel(msg) {
			ret = true
		}
	}
	if ret {
		g.cancelRequested = true
	}
	return ret
}

func (g *gathering) childDone(f *Future) {
	g.finished++
	if g.outer.Done() {
		return
	}
	if !g.collect && f.err != nil {
		g.outer.SetException(f.err)
		return
	}
	if g.finished < len(g.children) {
		return
	}
	if g.cancelRequested {
		g.outer.SetException(cancelledError(""))
		return
	}
	results := make([]any, len(g.children))
	for i, c := range g.children {
		results[i] = c.result
		if c.err != nil {
			results[i] = c.err
		}
	}
	g.outer.SetResult(results)
}

// WaitFor awaits aw from task t for at most timeout: asyncio.wait_for as
// Python 3.12 has it, a WithTimeout around the await. On timeout it
// cancels aw, waits until aw has actually finished (a task may take time
// to handle its cancellation), and returns an error wrapping ErrTimeout,
// unless aw finished normally despite the cancellation. If t is cancelled
// meanwhile, aw is cancelled too, and WaitFor returns ErrCancelled, also
// when the timeout passes too before aw finishes. A timeout <= 0 cancels
// aw at once, unless it is done.
func WaitFor(t *Task, aw Awaitable, timeout time.Duration) (any, error) {
	f := aw.future()
	if f.Done() {
		return f.Result()
	}
	if timeout <= 0 {
		f.Cancel("WaitFor timeout")
		res, err := t.Await(f)
		if f.Cancelled() {
			return nil, ErrTimeout
		}
		return res, err
	}
	var res any
	err := WithTimeout(t, timeout, func(*TimeoutScope) error {
		var err error
		res, err = t.Await(f)
		return err
	})
	return res, err
}

// Run is asyncio.run: it creates a loop for cfg, runs main as a task until
// it completes, cancels the tasks still pending and lets them finish,
// waits up to ExecutorJoinTimeout for the executor's jobs
// (ShutdownDefaultExecutor), then closes the loop and returns main's
// result, or the first error of these steps when main succeeded.
func Run(cfg Config, main func(t *Task) (any, error)) (any, error) {
	l, err := New(cfg)
	if err != nil {
		return nil, err
	}
	task := l.CreateTask(main)
	res, err := l.RunUntilComplete(task)
	if cerr := l.cancelAllTasks(); err == nil {
		err = cerr
	}
	if _, cerr := l.RunUntilComplete(l.ShutdownDefaultExecutor(ExecutorJoinTimeout)); err == nil {
		err = cerr
	}
	if cerr := l.Close(); err == nil {
		err = cerr
	}
	return res, err
}

// ExecutorJoinTimeout is how long Run waits for the executor's jobs:
// asyncio's THREAD_JOIN_TIMEOUT.
const ExecutorJoinTimeout = 300 * time.Second

// cancelAllTasks cancels every unfinished task and runs the loop until
// they are all done, as asyncio.run's _cancel_all_tasks.
func (l *Loop) cancelAllTasks() error {
	var pending []Awaitable
	for t := l.c.tasks().head; t != nil; t = t.nextTask {
		pending = append(pending, t)
	}
	if len(pending) == 0 {
		return nil
	}
	for _, t := range pending {
		t.(*Task).Cancel("")
	}
	_, err := l.RunUntilComplete(GatherErrors(l, pending...))
	return err
}
