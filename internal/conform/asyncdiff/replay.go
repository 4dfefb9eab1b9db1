package asyncdiff

import (
	"errors"
	"fmt"
	"time"

	"github.com/loopbench/loopbench"
	"github.com/loopbench/loopbench/internal/sys/sock"
)

// Limits of a replay, the same in replay.py: a trace longer than maxTrace
// ends it ("cap"), as do maxRuns runs of RunForever that the end timer
// did not end.
const (
	maxTrace = 5000
	maxRuns  = 100
)

// replay is one schedule running on one loop.
type replay struct {
	l       *loopbench.Loop
	d       *Driver
	s       *Schedule
	trace   []string
	handles map[int]loopbench.Handle // by the id of the act that made it
	futs    []*loopbench.Future
	cbs     map[int]doneReg // by the id of the fut_cb act
	insts   [][]*loopbench.Task
	order   []*loopbench.Task // every task, in creation order
	names   map[*loopbench.Task]string
	a, b    int // the socket the loop watches, and its peer
	buf     []byte
	ended   bool
	capped  bool
}

type doneReg struct {
	f   *loopbench.Future
	tok loopbench.CallbackToken
}

// Replay runs s on l, whose clock and selector d drives (see Driver), and
// returns the trace of what ran, in order. The error is the loop's, if
// RunForever failed.
func Replay(l *loopbench.Loop, d *Driver, s *Schedule) ([]string, error) {
	a, b, err := sock.Socketpair()
	if err != nil {
		return nil, err
	}
	defer sock.Close(a)
	defer sock.Close(b)
	r := &replay{l: l, d: d, s: s, a: a, b: b, buf: make([]byte, 64),
		handles: map[int]loopbench.Handle{}, cbs: map[int]doneReg{},
		insts: make([][]*loopbench.Task, len(s.Tasks)), names: map[*loopbench.Task]string{}}
	for range s.Futures {
		r.futs = append(r.futs, l.CreateFuture())
	}
	l.CallAt(time.Duration(s.End)*Unit, func() { r.tr("end"); r.ended = true; l.Stop() })
	r.do(s.Init)
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
	l.RemoveReader(a)
	l.RemoveWriter(a)
	return r.trace, nil
}

// cleanup cancels the tasks left, in creation order, and runs single
// iterations until they are done, a few rounds at most.
func (r *replay) cleanup() {
	r.d.disarm()
	r.tr("cleanup")
	cancelLeft(r.l, func() []*loopbench.Task { return r.order }, func(left []*loopbench.Task) {
		for _, t := range left {
			r.tr("cancel %s %v", r.names[t], t.Cancel(""))
		}
	})
}

// cancelLeft runs cancel on the tasks of order() not done yet, then
// single iterations until they are done: ten rounds of three at most.
// order is read each round, since cancelled tasks may create others.
func cancelLeft(l *loopbench.Loop, order func() []*loopbench.Task, cancel func(left []*loopbench.Task)) {
	for range 10 {
		var left []*loopbench.Task
		for _, t := range order() {
			if !t.Done() {
				left = append(left, t)
			}
		}
		if len(left) == 0 {
			return
		}
		cancel(left)
		for range 3 {
			l.Stop()
			if l.RunForever() != nil {
				return
			}
		}
	}
}

func (r *replay) tr(format string, args ...any) {
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

// node returns the callback of node k.
func (r *replay) node(k int) func() { return func() { r.run(k) } }

func (r *replay) run(k int) {
	if r.capped {
		return
	}
	r.tr("n%d", k)
	r.do(r.s.Nodes[k])
}

func (r *replay) do(acts []Act) {
	for _, a := range acts {
		r.act(a)
	}
}

// last returns the last instance of task program p, or nil.
func (r *replay) last(p int) *loopbench.Task {
	if n := len(r.insts[p]); n > 0 {
		return r.insts[p][n-1]
	}
	return nil
}

func (r *replay) act(a Act) {
	l := r.l
	switch a.Op {
	case "soon":
		r.handles[a.ID] = l.CallSoon(r.node(a.A))
	case "later":
		r.handles[a.ID] = l.CallLater(time.Duration(a.B)*Unit, r.node(a.A)).Handle
	case "at":
		r.handles[a.ID] = l.CallAt(time.Duration(a.B)*Unit, r.node(a.A)).Handle
	case "cancel":
		h, ok := r.handles[a.A]
		h.Cancel()
		r.tr("cancel h%d %v", a.A, ok)
	case "stop":
		r.tr("stop")
		l.Stop()
	case "ts":
		r.d.arm(r.node(a.A))
	case "add_reader":
		l.AddReader(r.a, r.node(a.A))
	case "remove_reader":
		r.tr("remove_reader %v", l.RemoveReader(r.a))
	case "add_writer":
		l.AddWriter(r.a, r.node(a.A))
	case "remove_writer":
		r.tr("remove_writer %v", l.RemoveWriter(r.a))
	case "send":
		sock.Write(r.b, r.buf[:a.A])
	case "recv":
		if n, err := sock.Read(r.a, r.buf[:a.A]); sock.IsAgain(err) {
			r.tr("recv -")
		} else {
			r.tr("recv %d", n)
		}
	default:
		r.futureAct(a)
	}
}

func (r *replay) futureAct(a Act) {
	switch a.Op {
	case "fut_cb":
		f := r.futs[a.A]
		tok := f.AddDoneCallback(func(f *loopbench.Future) {
			r.tr("f%d cb%d %s", a.A, a.ID, state(f.Result()))
			r.run(a.B)
		})
		r.cbs[a.ID] = doneReg{f, tok}
	case "fut_rm":
		reg, ok := r.cbs[a.A]
		r.tr("rm cb%d %v", a.A, ok && reg.f.RemoveDoneCallback(reg.tok))
	case "set_result":
		if err := r.futs[a.A].SetResult(a.B); err != nil {
			r.tr("set f%d invalid", a.A)
		} else {
			r.tr("set f%d ok", a.A)
		}
	case "fut_cancel":
		r.tr("cancel f%d %v", a.A, r.futs[a.A].Cancel(""))
	case "create_task":
		r.createTask(a.A)
	case "task_cancel":
		if t := r.last(a.A); t != nil {
			r.tr("cancel %s %v", r.names[t], t.Cancel(""))
		} else {
			r.tr("cancel t%d none", a.A)
		}
	case "task_cb":
		t := r.last(a.A)
		if t == nil {
			r.tr("task_cb t%d none", a.A)
			return
		}
		name := r.names[t]
		t.AddDoneCallback(func(f *loopbench.Future) {
			r.tr("%s cb%d %s", name, a.ID, state(f.Result()))
			r.run(a.B)
		})
	default:
		panic("asyncdiff: unknown op " + a.Op)
	}
}

// state describes a done future's outcome.
func state(v any, err error) string {
	switch {
	case errors.Is(err, loopbench.ErrCancelled):
		return "cancelled"
	case err != nil:
		return "error"
	}
	return fmt.Sprint("result ", v)
}

func (r *replay) createTask(p int) {
	n := len(r.insts[p]) + 1
	name := fmt.Sprintf("t%d.%d", p, n)
	t := r.l.CreateTask(func(t *loopbench.Task) (any, error) { return r.runProg(t, name, r.s.Tasks[p], p*100+n) })
	r.insts[p] = append(r.insts[p], t)
	r.order = append(r.order, t)
	r.names[t] = name
	r.tr("create %s", name)
}

// runProg is a task's function: its program's steps, then value.
func (r *replay) runProg(t *loopbench.Task, name string, prog Prog, value int) (any, error) {
	r.tr("%s start", name)
	for _, st := range prog.Steps {
		var what string
		var v any
		var err error
		switch st.Op {
		case "await_fut":
			what = fmt.Sprintf("await f%d", st.A)
			v, err = t.Await(r.futs[st.A])
		case "await_task":
			target := r.last(st.A)
			if target == nil {
				r.tr("%s await t%d none", name, st.A)
				continue
			}
			what = "await " + r.names[target]
			v, err = t.Await(target)
		case "sleep":
			what = fmt.Sprintf("sleep %d", st.A)
			err = loopbench.Sleep(t, time.Duration(st.A)*Unit)
		}
		out := state(v, err)
		if st.Op == "sleep" && err == nil {
			out = "ok"
		}
		r.tr("%s %s: %s", name, what, out)
		if err != nil && !prog.Catch {
			r.tr("%s raise", name)
			return nil, err
		}
	}
	r.tr("%s return", name)
	return value, nil
}
