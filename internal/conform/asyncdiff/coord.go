package asyncdiff

import "math/rand/v2"

// CoordSchedule is one generated program over the coordination
// primitives, the second kind of schedule the check replays (ReplayCoord
// here, coord.py under asyncio): one of each primitive, task programs
// started at given times, and cancellations of tasks at given times, with
// a timer that ends it. Times are in units (Unit).
type CoordSchedule struct {
	Seed    uint64      `json:"seed"`
	Sem     int         `json:"sem"`     // the Semaphore's initial value
	Bounded int         `json:"bounded"` // the BoundedSemaphore's
	QMax    int         `json:"qmax"`    // the queue's maxsize, 0 unbounded
	QKind   string      `json:"qkind"`   // fifo, lifo or prio
	Parties int         `json:"parties"` // the Barrier's
	Tasks   []CoordProg `json:"tasks"`
	Cancels []CoordAct  `json:"cancels"`
	End     int         `json:"end"`
}

// CoordAct cancels task Task at time At, from a timer callback.
type CoordAct struct {
	At   int `json:"at"`
	Task int `json:"task"`
}

// CoordProg is a task program: when it starts, whether it catches a
// cancellation (uncancels, and goes on with its next step) or ends with
// it, and its steps.
type CoordProg struct {
	Start int    `json:"start"`
	Catch bool   `json:"catch"`
	Steps []Step `json:"steps"`
}

// Step is one operation of a task, traced with its outcome:
//
//	lock A        acquire the Lock, hold it A units (0: sleep(0)), release
//	sem A         the same with the Semaphore
//	bsem A        the same with the BoundedSemaphore
//	brel          release the BoundedSemaphore once more (ValueError past its bound)
//	ev_wait       wait for the Event; ev_set, ev_clear
//	cond_wait     with the Condition's lock: wait
//	cond_notify A with the Condition's lock: notify(A); cond_all: notify_all
//	cond_waitfor  with the Condition's lock: wait_for(the queue is not empty)
//	put A         put A in the queue (waits while full); putn A: put_nowait
//	get           get from the queue (waits while empty); getn: get_nowait
//	barrier       wait at the Barrier (its index); abort, reset
//	state         the primitives' state: Lock, Semaphore, BoundedSemaphore and
//	              Condition locked, Event set, queue size, Barrier waiting and broken
//	sleep A       sleep A units
//	cancel A      cancel task A
//	timeout A B   inner step B (0 get, 1 lock 0, 2 ev_wait, 3 sem 0) with a deadline A units away
//	waitfor A     wait_for(a new task that gets from the queue, A units)
//	wait A B      wait(two new tasks: one gets from the queue, one sleeps A units;
//	              FIRST_COMPLETED if B is 1, else ALL_COMPLETED; timeout 4 units)
//	shield A      await shield(task A)
//	group A B     a TaskGroup of two tasks: one gets from the queue, one
//	              sleeps A units, then fails if B is 1
type Step struct {
	Op string `json:"op"`
	A  int    `json:"a"`
	B  int    `json:"b"`
}

// coordOps are the step operations, weighted by repetition.
var coordOps = []string{
	"lock", "lock", "lock", "sem", "sem", "bsem", "brel",
	"ev_wait", "ev_wait", "ev_set", "ev_clear",
	"cond_wait", "cond_wait", "cond_notify", "cond_all", "cond_waitfor",
	"put", "put", "put", "get", "get", "get", "putn", "getn",
	"barrier", "barrier", "abort", "reset",
	"sleep", "sleep", "cancel", "cancel", "state",
	"timeout", "timeout", "waitfor", "wait", "shield", "group",
}

// GenerateCoord returns the coordination schedule of seed.
func GenerateCoord(seed uint64) CoordSchedule {
	r := rand.New(rand.NewPCG(seed, 0xc00d))
	s := CoordSchedule{
		Seed: seed, Sem: r.IntN(4), Bounded: 1 + r.IntN(3), QMax: r.IntN(3),
		QKind: []string{"fifo", "lifo", "prio"}[r.IntN(3)], Parties: 2 + r.IntN(2), End: 200,
	}
	n := 3 + r.IntN(6)
	for i := range n {
		p := CoordProg{Start: r.IntN(12), Catch: r.IntN(3) == 0}
		for j := range 2 + r.IntN(7) {
			p.Steps = append(p.Steps, coordStep(r, n, i*100+j))
		}
		s.Tasks = append(s.Tasks, p)
	}
	for range r.IntN(7) {
		s.Cancels = append(s.Cancels, CoordAct{At: r.IntN(40), Task: r.IntN(n)})
	}
	return s
}

// coordStep draws one step of a task among n; v is a value to put, unique
// in the schedule.
func coordStep(r *rand.Rand, n, v int) Step {
	st := Step{Op: coordOps[r.IntN(len(coordOps))]}
	switch st.Op {
	case "lock", "sem", "bsem", "sleep":
		st.A = r.IntN(4)
	case "cond_notify":
		st.A = 1 + r.IntN(2)
	case "put", "putn":
		st.A = v
	case "cancel", "shield":
		st.A = r.IntN(n)
	case "timeout":
		st.A, st.B = 1+r.IntN(6), r.IntN(4)
	case "waitfor":
		st.A = 1 + r.IntN(6)
	case "group", "wait":
		st.A, st.B = r.IntN(4)*2, r.IntN(2)
	}
	return st
}
