package looptest

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/loopbench/loopbench"
)

// coordModel is what the randomized test's tasks have done to a bounded
// FIFO queue, a semaphore and a lock: the model the primitives are checked
// against after every iteration.
type coordModel struct {
	puts, gets []int // items in the order put, and taken
	semHeld    int   // permits held
	lockHeld   int   // holders of the lock
	// waitingOn is, per task, the call it waits in ("put", "get", "sem",
	// "lock"); done counts, per call, those that returned in this
	// iteration; stuck counts, per call, the iterations in a row that
	// ended with tasks waiting in it, what they wait for there (an item,
	// a free slot, a permit, the lock), and none of them returning.
	waitingOn []string
	done      map[string]int
	stuck     map[string]int
	cancels   int
	ops       int
}

// modelShape is a randomized run's size: tasks, iterations, and the
// chance per iteration (one in cancelOneIn) that cancels crowd tasks.
type modelShape struct {
	tasks, steps, cancelOneIn, crowd int
}

var (
	// modelFew: a few tasks, many iterations, a cancel every fourth.
	modelFew = modelShape{tasks: 8, steps: 3000, cancelOneIn: 4, crowd: 1}
	// modelCrowd: a hundred tasks, most of them waiting, cancelled five
	// at a time, so the waiter lists grow long and leave holes.
	modelCrowd = modelShape{tasks: 100, steps: 600, cancelOneIn: 2, crowd: 5}
)

const (
	modelQueue  = 3
	modelPermit = 2
	modelStuck  = 4 // iterations a wake-up may take to arrive
)

// WakeInvariant, when set, is checked after every iteration of the
// randomized run: the loopbench package's own tests set it to a check
// that sees the waiters, which this package cannot.
var WakeInvariant func(q *loopbench.Queue[int], sem *loopbench.Semaphore, lock *loopbench.Lock) error

// testModel runs tasks doing random Put, Get, Acquire and Release on the
// primitives, and cancels them at random (a cancelled task takes note and
// carries on, as a worker does), checking after every iteration that the
// queue holds exactly the items put and not taken, in FIFO order, that
// no permit or lock is held twice or lost, and that no waiter stays
// blocked while what it waits for is there: a lost wake-up.
func testModel(t *testing.T, l *loopbench.Loop) { testModelShape(t, l, modelFew) }

// testModelCrowd is testModel with many waiters at once.
func testModelCrowd(t *testing.T, l *loopbench.Loop) { testModelShape(t, l, modelCrowd) }

func testModelShape(t *testing.T, l *loopbench.Loop, shape modelShape) {
	rng := rand.New(rand.NewPCG(24, 1))
	q := loopbench.NewQueue[int](modelQueue)
	sem := loopbench.NewSemaphore(modelPermit)
	lock := loopbench.NewLock()
	m := &coordModel{waitingOn: make([]string, shape.tasks), done: map[string]int{}, stuck: map[string]int{}}
	next := 0
	var tasks []*loopbench.Task
	for i := range shape.tasks {
		r := rand.New(rand.NewPCG(uint64(i), 2))
		tasks = append(tasks, run(l, func(t *loopbench.Task) error {
			for {
				if err := m.step(t, i, r, q, sem, lock, &next); err != nil {
					if !errors.Is(err, loopbench.ErrCancelled) {
						return err
					}
					m.cancels++
					if t.Uncancel() != 0 {
						return nil // the end of the test
					}
				}
			}
		}))
	}
	for step := range shape.steps {
		if rng.IntN(shape.cancelOneIn) == 0 {
			for range shape.crowd {
				tasks[rng.IntN(shape.tasks)].Cancel("")
			}
		}
		l.CallSoon(func() {}) // the iteration does not block if every task waits
		RunOnce(t, l)
		err := m.check(q, sem, lock)
		if err == nil && WakeInvariant != nil {
			err = WakeInvariant(q, sem, lock)
		}
		if err != nil {
			t.Fatalf("after iteration %d: %v", step, err)
		}
	}
	for _, task := range tasks {
		task.Cancel("")
		task.Cancel("") // twice: the task ends
	}
	for _, task := range tasks {
		if _, err := complete(t, l, task); err != nil {
			t.Fatal(err)
		}
	}
	if m.ops < shape.steps || m.cancels < shape.steps/8 || len(m.gets) < shape.steps/10 {
		t.Fatalf("the run did too little to test anything: %d operations, %d cancellations, %d items taken",
			m.ops, m.cancels, len(m.gets))
	}
	t.Logf("%d operations, %d cancellations, %d items put, %d taken", m.ops, m.cancels, len(m.puts), len(m.gets))
}

// step does one random operation in task i.
func (m *coordModel) step(t *loopbench.Task, i int, r *rand.Rand, q *loopbench.Queue[int], sem *loopbench.Semaphore, lock *loopbench.Lock, next *int) error {
	if err := loopbench.Sleep(t, 0); err != nil { // a step per iteration at most
		return err
	}
	m.ops++
	switch r.IntN(6) {
	case 0, 1:
		v := *next
		*next++
		m.waitingOn[i] = "put"
		err := q.Put(t, v)
		m.returned(i)
		if err == nil {
			m.puts = append(m.puts, v)
		}
		return err
	case 2, 3:
		m.waitingOn[i] = "get"
		v, err := q.Get(t)
		m.returned(i)
		if err == nil {
			m.gets = append(m.gets, v)
			q.TaskDone()
		}
		return err
	case 4:
		m.waitingOn[i] = "sem"
		err := sem.Acquire(t)
		m.returned(i)
		if err != nil {
			return err
		}
		m.semHeld++
		err = loopbench.Sleep(t, time.Duration(r.IntN(2))*time.Microsecond)
		m.semHeld--
		if rerr := sem.Release(); rerr != nil {
			return rerr
		}
		return err
	default:
		m.waitingOn[i] = "lock"
		err := lock.Acquire(t)
		m.returned(i)
		if err != nil {
			return err
		}
		m.lockHeld++
		err = loopbench.Sleep(t, 0)
		m.lockHeld--
		if rerr := lock.Release(); rerr != nil {
			return rerr
		}
		return err
	}
}

// returned notes that task i's call returned.
func (m *coordModel) returned(i int) {
	m.done[m.waitingOn[i]]++
	m.waitingOn[i] = ""
}

// check verifies the invariants between iterations.
func (m *coordModel) check(q *loopbench.Queue[int], sem *loopbench.Semaphore, lock *loopbench.Lock) error {
	switch {
	case q.Len() != len(m.puts)-len(m.gets):
		return fmt.Errorf("queue holds %d items; %d put and %d taken", q.Len(), len(m.puts), len(m.gets))
	case q.Len() > modelQueue:
		return fmt.Errorf("queue holds %d items, bound %d", q.Len(), modelQueue)
	case !slices.Equal(m.gets, m.puts[:len(m.gets)]):
		return fmt.Errorf("items taken %v are not the first put %v", m.gets, m.puts[:len(m.gets)])
	case m.semHeld+sem.Value() != modelPermit || sem.Value() < 0:
		return fmt.Errorf("%d permits held, Value %d, of %d", m.semHeld, sem.Value(), modelPermit)
	case m.lockHeld > 1 || (m.lockHeld == 1) != lock.Locked():
		return fmt.Errorf("%d holders of the lock, Locked %v", m.lockHeld, lock.Locked())
	}
	waiting := map[string]bool{}
	for _, on := range m.waitingOn {
		waiting[on] = on != ""
	}
	available := map[string]bool{
		"put":  !q.Full(),
		"get":  !q.Empty(),
		"sem":  sem.Value() > 0,
		"lock": !lock.Locked(),
	}
	for _, on := range []string{"put", "get", "sem", "lock"} {
		if !waiting[on] || !available[on] || m.done[on] > 0 {
			m.stuck[on] = 0
		} else if m.stuck[on]++; m.stuck[on] > modelStuck {
			return fmt.Errorf("tasks wait in %s, with it available, and none returned in %d iterations: a lost wake-up", on, m.stuck[on])
		}
	}
	clear(m.done)
	return nil
}
