// Package asyncdiff is the differential check of loopbench against
// CPython's asyncio: Generate makes a schedule of loop operations from a
// seed, Replay runs it on a loopbench loop, replay.py (RunPython) runs the
// same schedule under asyncio, and each gives a trace of the order its
// callbacks ran in, which must be equal.
//
// A schedule is deterministic in both loops. Time is the loop's own
// clock, moved by the Driver only when the loop would block, by exactly
// the timeout it would block for (so timers fire at their deadline,
// whatever the machine's speed), and thread-safe calls are made by
// another thread (goroutine) at a defined point: while the loop waits in
// select, the case call_soon_threadsafe is for. Equal deadlines run first
// scheduled, first run in both: loopbench's documented order, which
// replay.py imposes on asyncio's heap, where it is undefined.
//
// The coordination primitives have schedules of their own: GenerateCoord
// makes task programs over a Lock, Semaphore, BoundedSemaphore, Event,
// Condition, queue, Barrier, task groups, timeouts, wait_for, wait and
// shield, with cancellations at random points; ReplayCoord runs one on a
// loopbench loop and coord.py (RunPythonCoord) under asyncio, under the
// same driven clock, each giving a trace of what every task got, in
// order, with which exception. loopbench follows the asyncio of Python
// 3.13; on an older Python, coord.py imposes 3.13's behaviour where it
// differs (its header lists where).
package asyncdiff

import (
	"math/rand/v2"
	"time"
)

// Schedule is one generated program: acts done before the first run,
// numbered callbacks (nodes) that record themselves and do their acts
// when they run, task programs, a number of futures, and the loop time
// (in units) of the timer that ends it.
type Schedule struct {
	Seed    uint64  `json:"seed"`
	Init    []Act   `json:"init"`
	Nodes   [][]Act `json:"nodes"`
	Tasks   []Prog  `json:"tasks"`
	Futures int     `json:"futures"`
	End     int     `json:"end"`
}

// Act is one operation. ID names the handle or done callback it makes
// (for cancel and fut_rm); A and B are its arguments:
//
//	soon A            call_soon(node A)
//	later A B         call_later(B units, node A)      B may be negative
//	at A B            call_at(B units, node A)
//	cancel A          cancel the handle act A made last, if any
//	stop              loop.stop()
//	ts A              call_soon_threadsafe(node A) from another thread, made
//	                  when the loop next waits in select
//	add_reader A      add_reader(the socket, node A); remove_reader
//	add_writer A      add_writer(the socket, node A); remove_writer
//	send A            write A bytes to the socket's peer
//	recv A            read up to A bytes from the socket
//	fut_cb A B        future A's add_done_callback: record it, then node B
//	fut_rm A          remove the done callback act A added
//	set_result A B    future A's set_result(B)
//	fut_cancel A      future A's cancel()
//	create_task A     start task program A (again: a new instance)
//	task_cancel A     cancel the last instance of program A
//	task_cb A B       done callback on program A's last instance, then node B
//
// Task steps: await_fut A (future A), await_task A (program A's last
// instance, A lower than the awaiting program), sleep A (A units; 0 is
// sleep(0)).
type Act struct {
	ID int    `json:"id"`
	Op string `json:"op"`
	A  int    `json:"a"`
	B  int    `json:"b"`
}

// Prog is a task program: its steps, and whether it catches a
// cancellation at a step and goes on (else the task ends cancelled).
type Prog struct {
	Catch bool  `json:"catch"`
	Steps []Act `json:"steps"`
}

// Unit is the loop time of one schedule unit in loopbench; replay.py uses
// 1/1024 s, a binary fraction, so that its float deadlines add exactly.
// Only the order of deadlines matters, and it is the same.
const Unit = time.Millisecond

// gen builds one schedule.
type gen struct {
	r      *rand.Rand
	s      Schedule
	kinds  []byte // per node: 'p' plain, 'r' reader (recv first), 'w' writer (remove_writer first)
	runs   []int  // an upper estimate of how often each node runs
	nextID int
	made   []int // ids of acts that make a handle
	cbs    []int // ids of fut_cb acts
}

// runBudget bounds how often one node may be estimated to run, so that a
// schedule's trace stays short.
const runBudget = 6

// Generate returns the schedule of seed.
func Generate(seed uint64) Schedule {
	g := &gen{r: rand.New(rand.NewPCG(seed, 0x5eed)), s: Schedule{Seed: seed, End: 400}}
	n := 15 + g.r.IntN(25)
	g.kinds = make([]byte, n)
	g.runs = make([]int, n)
	for k := range g.kinds {
		switch x := g.r.IntN(100); {
		case x < 15:
			g.kinds[k] = 'r'
		case x < 25:
			g.kinds[k] = 'w'
		default:
			g.kinds[k] = 'p'
		}
	}
	g.s.Futures = g.r.IntN(5)
	for range g.r.IntN(6) {
		g.s.Tasks = append(g.s.Tasks, g.prog(len(g.s.Tasks)))
	}
	g.s.Init = g.acts(-1, 5+g.r.IntN(8), 1)
	g.s.Nodes = make([][]Act, n)
	for k := range n {
		var acts []Act
		switch g.kinds[k] {
		case 'r':
			acts = append(acts, g.act("recv", 1+g.r.IntN(8), 0))
		case 'w':
			acts = append(acts, g.act("remove_writer", 0, 0))
		}
		g.s.Nodes[k] = append(acts, g.acts(k, 1+g.r.IntN(4), max(g.runs[k], 1))...)
	}
	return g.s
}

func (g *gen) act(op string, a, b int) Act {
	g.nextID++
	return Act{ID: g.nextID, Op: op, A: a, B: b}
}

// prog returns the task program of index p.
func (g *gen) prog(p int) Prog {
	pr := Prog{Catch: g.r.IntN(3) == 0}
	for range 1 + g.r.IntN(4) {
		switch x := g.r.IntN(10); {
		case x < 4 && g.s.Futures > 0:
			pr.Steps = append(pr.Steps, g.act("await_fut", g.r.IntN(g.s.Futures), 0))
		case x < 6 && p > 0:
			pr.Steps = append(pr.Steps, g.act("await_task", g.r.IntN(p), 0))
		case x < 8:
			pr.Steps = append(pr.Steps, g.act("sleep", 0, 0))
		default:
			pr.Steps = append(pr.Steps, g.act("sleep", 1+g.r.IntN(40), 0))
		}
	}
	return pr
}

// target picks a node after k for an act that schedules it from a node
// estimated to run runs times, of kind want (0: any), or -1 when none
// fits the budget.
func (g *gen) target(k, runs int, want byte) int {
	for range 4 {
		if k+1 >= len(g.kinds) {
			return -1
		}
		t := k + 1 + g.r.IntN(min(len(g.kinds)-k-1, 8))
		if (want == 0 || g.kinds[t] == want) && g.runs[t]+runs <= runBudget {
			g.runs[t] += runs
			if g.kinds[t] == 'r' {
				g.runs[t] = runBudget // a reader runs while data is there
			}
			return t
		}
	}
	return -1
}

// acts returns n acts for node k (-1: the initial acts), which runs an
// estimated runs times.
func (g *gen) acts(k, n, runs int) []Act {
	var out []Act
	for try := 0; len(out) < n && try < 20*n; try++ {
		if a, ok := g.oneAct(k, runs); ok {
			out = append(out, a)
		}
	}
	return out
}

// pick returns an act op that schedules a node after k (of kind want, 0
// for any) from a node estimated to run runs times, or false when none
// fits the budget. A reader runs as long as data is there: it schedules
// nothing (nor sends, nor starts a task), so that it cannot feed itself.
func (g *gen) pick(k, runs int, reader bool, op string, want byte, b int) (Act, bool) {
	if reader {
		return Act{}, false
	}
	t := g.target(k, runs, want)
	if t < 0 {
		return Act{}, false
	}
	a := g.act(op, t, b)
	if op == "soon" || op == "later" || op == "at" {
		g.made = append(g.made, a.ID)
	}
	return a, true
}

// delays are the call_later delays, in units: repeats make equal
// deadlines, negatives run in deadline order on the next iteration.
var delays = []int{-3, -1, 0, 0, 1, 2, 2, 3, 5, 8, 8, 20, 50}

// oneAct returns a random act for node k, or false when the one drawn
// does not fit (no target within the budget, nothing to refer to).
func (g *gen) oneAct(k, runs int) (Act, bool) {
	reader := k >= 0 && g.kinds[k] == 'r'
	pick := func(op string, want byte, b int) (Act, bool) { return g.pick(k, runs, reader, op, want, b) }
	nf, nt := g.s.Futures, len(g.s.Tasks)
	switch x := g.r.IntN(100); {
	case x < 18:
		return pick("soon", 0, 0)
	case x < 32:
		return pick("later", 0, delays[g.r.IntN(len(delays))])
	case x < 38:
		return pick("at", 0, 5*g.r.IntN(20))
	case x < 46 && len(g.made) > 0:
		return g.act("cancel", g.made[g.r.IntN(len(g.made))], 0), true
	case x < 48 && k >= 0:
		return g.act("stop", 0, 0), true
	case x < 54:
		return pick("ts", 0, 0)
	case x < 58:
		return pick("add_reader", 'r', 0)
	case x < 60:
		return g.act("remove_reader", 0, 0), true
	case x < 62:
		return pick("add_writer", 'w', 0)
	case x < 68 && !reader:
		return g.act("send", 1+g.r.IntN(6), 0), true
	case x < 74 && nf > 0:
		a, ok := pick("fut_cb", 0, 0)
		a.A, a.B = g.r.IntN(nf), a.A
		if ok {
			g.cbs = append(g.cbs, a.ID)
		}
		return a, ok
	case x < 76 && len(g.cbs) > 0:
		return g.act("fut_rm", g.cbs[g.r.IntN(len(g.cbs))], 0), true
	case x < 83 && nf > 0:
		return g.act("set_result", g.r.IntN(nf), g.r.IntN(100)), true
	case x < 86 && nf > 0:
		return g.act("fut_cancel", g.r.IntN(nf), 0), true
	case x < 92 && nt > 0 && !reader:
		return g.act("create_task", g.r.IntN(nt), 0), true
	case x < 96 && nt > 0:
		return g.act("task_cancel", g.r.IntN(nt), 0), true
	case nt > 0:
		a, ok := pick("task_cb", 0, 0)
		a.A, a.B = g.r.IntN(nt), a.A
		return a, ok
	}
	return Act{}, false
}
