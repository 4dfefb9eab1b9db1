package asyncdiff

import (
	"errors"
	"fmt"
	"time"

	"github.com/loopbench/loopbench"
)

// coordReplay is one coordination schedule running on one loop.
type coordReplay struct {
	l      *loopbench.Loop
	d      *Driver
	s      *CoordSchedule
	trace  []string
	lock   *loopbench.Lock
	sem    *loopbench.Semaphore
	bsem   *loopbench.Semaphore
	ev     *loopbench.Event
	cond   *loopbench.Condition
	q      *loopbench.Queue[int]
	bar    *loopbench.Barrier
	tasks  []*loopbench.Task // by program, nil until it starts
	order  []*loopbench.Task // every task, children too, in creation order
	ended  bool
	capped bool
}

// errFail is the failure of a task group's child (ValueError in coord.py).
var errFail = errors.New("asyncdiff: the child fails")

// ReplayCoord runs s on l, whose clock and selector d drives (see Driver),
// and returns the trace of what each task did and got, in order. The
// error is the loop's, if RunForever failed.
func ReplayCoord(l *loopbench.Loop, d *Driver, s *CoordSchedule) ([]string, error) {
	r := &coordReplay{l: l, d: d, s: s, lock: loopbench.NewLock(),
		sem: loopbench.NewSemaphore(s.Sem), bsem: loopbench.NewBoundedSemaphore(s.Bounded),
		ev: loopbench.NewEvent(), cond: loopbench.NewCondition(nil), bar: loopbench.NewBarrier(s.Parties),
		tasks: make([]*loopbench.Task, len(s.Tasks))}
	switch s.QKind {
	case "lifo":
		r.q = loopbench.NewLifoQueue[int](s.QMax)
	case "prio":
		r.q = loopbench.NewPriorityQueue(s.QMax, func(a, b int) bool { return a < b })
	default:
		r.q = loopbench.NewQueue[int](s.QMax)
	}
	for i, p := range s.Tasks {
		l.CallAt(units(p.Start), func() { r.start(i) })
	}
	for _, c := range s.Cancels {
		l.CallAt(units(c.At), func() { r.cancel(c.Task) })
	}
	l.CallAt(units(s.End), func() { r.tr("end"); r.ended = true; l.Stop() })
	for runs := 0; !r.ended && !r.capped && runs < maxRuns; runs++ {
		if err := l.RunForever(); err != nil {
			r.tr("error")
			return r.trace, err
		}
		r.tr("run returned")
	}
	if !r.capped {
		r.cleanup()
	}
	return r.trace, nil
}

func units(n int) time.Duration { return time.Duration(n) * Unit }

func (r *coordReplay) tr(format string, args ...any) {
	if r.capped {
		return
	}
	r.trace = append(r.trace, fmt.Sprintf(format, args...))
	if len(r.trace) >= maxTrace {
		r.trace = append(r.trace, "cap")
		r.capped = true
		r.l.Stop()
	}
}

// cleanup cancels the tasks left, in creation order, and runs single
// iterations until they are done, a few rounds at most (as replay's).
func (r *coordReplay) cleanup() {
	r.tr("cleanup")
	cancelLeft(r.l, func() []*loopbench.Task { return r.order }, func(left []*loopbench.Task) {
		r.tr("cancel %d", len(left))
		for _, t := range left {
			t.Cancel("")
		}
	})
}

func (r *coordReplay) start(i int) {
	r.tr("create t%d", i)
	r.tasks[i] = r.l.CreateTask(func(t *loopbench.Task) (any, error) { return r.runProg(t, i) })
	r.order = append(r.order, r.tasks[i])
}

func (r *coordReplay) cancel(i int) {
	if t := r.tasks[i]; t != nil {
		r.tr("cancel t%d %v", i, t.Cancel(""))
	} else {
		r.tr("cancel t%d none", i)
	}
}

// runProg is task program i: its steps, each traced with its outcome.
func (r *coordReplay) runProg(t *loopbench.Task, i int) (any, error) {
	name := fmt.Sprintf("t%d", i)
	prog := r.s.Tasks[i]
	r.tr("%s start", name)
	for j, st := range prog.Steps {
		out, err := r.step(t, i, fmt.Sprintf("%s.%d", name, j), st)
		if err != nil {
			out = errName(err)
		}
		r.tr("%s %s %d %d: %s", name, st.Op, st.A, st.B, out)
		if out == "cancelled" {
			if !prog.Catch {
				r.tr("%s raise", name)
				return nil, err
			}
			t.Uncancel()
		}
	}
	r.tr("%s return", name)
	return i, nil
}

// errName is the name of the exception asyncio raises for err.
func errName(err error) string {
	switch {
	case errors.Is(err, loopbench.ErrTimeout):
		return "TimeoutError"
	case errors.Is(err, errFail):
		return "ValueError"
	case errors.Is(err, loopbench.ErrCancelled):
		return "cancelled"
	case errors.Is(err, loopbench.ErrSemaphoreReleased):
		return "ValueError"
	case errors.Is(err, loopbench.ErrBrokenBarrier):
		return "BrokenBarrierError"
	case errors.Is(err, loopbench.ErrQueueFull):
		return "QueueFull"
	case errors.Is(err, loopbench.ErrQueueEmpty):
		return "QueueEmpty"
	case errors.Is(err, loopbench.ErrNotAcquired):
		return "RuntimeError"
	}
	return "error " + err.Error()
}

// step does one step of task i; name names the tasks it makes.
func (r *coordReplay) step(t *loopbench.Task, i int, name string, st Step) (string, error) {
	switch st.Op {
	case "lock":
		return hold(t, r.lock.Acquire, r.lock.Release, st.A)
	case "sem":
		return hold(t, r.sem.Acquire, r.sem.Release, st.A)
	case "bsem":
		return hold(t, r.bsem.Acquire, r.bsem.Release, st.A)
	case "brel":
		return "ok", r.bsem.Release()
	case "ev_wait":
		return "ok", r.ev.Wait(t)
	case "ev_set":
		r.ev.Set()
	case "ev_clear":
		r.ev.Clear()
	case "cond_wait":
		return r.withCond(t, func() error { return r.cond.Wait(t) })
	case "cond_notify":
		return r.withCond(t, func() error { return r.cond.Notify(st.A) })
	case "cond_all":
		return r.withCond(t, r.cond.NotifyAll)
	case "cond_waitfor":
		return r.withCond(t, func() error { return r.cond.WaitFor(t, func() bool { return !r.q.Empty() }) })
	case "put":
		return "ok", r.q.Put(t, st.A)
	case "putn":
		return "ok", r.q.PutNowait(st.A)
	case "get":
		return got(r.q.Get(t))
	case "getn":
		return got(r.q.GetNowait())
	default:
		return r.step2(t, i, name, st)
	}
	return "ok", nil
}

func (r *coordReplay) step2(t *loopbench.Task, i int, name string, st Step) (string, error) {
	switch st.Op {
	case "barrier":
		n, err := r.bar.Wait(t)
		return fmt.Sprint("index ", n), err
	case "abort":
		r.bar.Abort()
	case "reset":
		r.bar.Reset()
	case "state":
		return fmt.Sprintf("%v %v %v %v %v %d %d %v", r.lock.Locked(), r.sem.Locked(), r.bsem.Locked(),
			r.cond.Locked(), r.ev.IsSet(), r.q.Len(), r.bar.NWaiting(), r.bar.Broken()), nil
	case "sleep":
		return "ok", loopbench.Sleep(t, units(st.A))
	case "cancel":
		if target := r.tasks[st.A]; target != nil {
			return fmt.Sprint(target.Cancel("")), nil
		}
		return "none", nil
	case "timeout":
		var out string
		err := loopbench.WithTimeout(t, units(st.A), func(*loopbench.TimeoutScope) error {
			var err error
			out, err = r.inner(t, st.B)
			return err
		})
		return out, err
	case "waitfor":
		child := r.child(r.l.CreateTask, name+".w", func(t *loopbench.Task) (string, error) { return got(r.q.Get(t)) })
		v, err := loopbench.WaitFor(t, child, units(st.A))
		return fmt.Sprint(v), err
	case "wait":
		return r.wait(t, name, st)
	case "shield":
		target := r.tasks[st.A]
		if target == nil || st.A == i {
			return "none", nil
		}
		v, err := t.Await(loopbench.Shield(r.l, target))
		return fmt.Sprint("result ", v), err
	case "group":
		return r.group(t, name, st)
	default:
		panic("asyncdiff: unknown coordination step " + st.Op)
	}
	return "ok", nil
}

// wait is the wait step: two new tasks, waited for with Wait.
func (r *coordReplay) wait(t *loopbench.Task, name string, st Step) (string, error) {
	a := r.child(r.l.CreateTask, name+".a", func(t *loopbench.Task) (string, error) { return got(r.q.Get(t)) })
	b := r.child(r.l.CreateTask, name+".b", func(t *loopbench.Task) (string, error) {
		return "ok", loopbench.Sleep(t, units(st.A))
	})
	mode := loopbench.AllCompleted
	if st.B == 1 {
		mode = loopbench.FirstCompleted
	}
	done, pending, err := loopbench.Wait(t, []loopbench.Awaitable{a, b}, mode, units(4))
	return fmt.Sprintf("done %d pending %d", len(done), len(pending)), err
}

// inner is the step a timeout bounds.
func (r *coordReplay) inner(t *loopbench.Task, which int) (string, error) {
	switch which {
	case 0:
		return got(r.q.Get(t))
	case 1:
		return hold(t, r.lock.Acquire, r.lock.Release, 0)
	case 2:
		return "ok", r.ev.Wait(t)
	}
	return hold(t, r.sem.Acquire, r.sem.Release, 0)
}

func (r *coordReplay) group(t *loopbench.Task, name string, st Step) (string, error) {
	err := loopbench.WithTaskGroup(t, func(g *loopbench.TaskGroup) error {
		r.child(g.CreateTask, name+".a", func(t *loopbench.Task) (string, error) { return got(r.q.Get(t)) })
		r.child(g.CreateTask, name+".b", func(t *loopbench.Task) (string, error) {
			if err := loopbench.Sleep(t, units(st.A)); err != nil || st.B == 0 {
				return "ok", err
			}
			return "", errFail
		})
		return nil
	})
	if errors.Is(err, errFail) {
		return "ExceptionGroup", nil
	}
	return "ok", err
}

// child starts fn as a task with create, traced under name.
func (r *coordReplay) child(create func(func(*loopbench.Task) (any, error)) *loopbench.Task, name string,
	fn func(t *loopbench.Task) (string, error)) *loopbench.Task {
	task := create(func(t *loopbench.Task) (any, error) {
		out, err := fn(t)
		if err != nil {
			out = errName(err)
		}
		r.tr("%s: %s", name, out)
		return out, err
	})
	r.order = append(r.order, task)
	return task
}

// hold acquires, holds for n units, and releases.
func hold(t *loopbench.Task, acquire func(*loopbench.Task) error, release func() error, n int) (string, error) {
	if err := acquire(t); err != nil {
		return "", err
	}
	err := loopbench.Sleep(t, units(n))
	if rerr := release(); rerr != nil {
		return "", rerr // raised in asyncio's finally, it replaces err
	}
	return "ok", err
}

func (r *coordReplay) withCond(t *loopbench.Task, fn func() error) (string, error) {
	if err := r.cond.Acquire(t); err != nil {
		return "", err
	}
	err := fn()
	r.cond.Release()
	return "ok", err
}

func got(v int, err error) (string, error) { return fmt.Sprint("got ", v), err }
