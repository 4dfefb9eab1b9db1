package looptest

import (
	"errors"
	"fmt"
	"testing"

	"github.com/loopbench/loopbench"
)

// RunCoordination runs the coordination suite on cfg: asyncio's locks.py,
// queues.py, taskgroups.py and tasks.py (wait, as_completed, shield,
// timeout) behaviours, and a randomized run against a model.
func RunCoordination(t *testing.T, cfg loopbench.Config) {
	runEach(t, cfg, []loopTest{
		{"LockFIFO", testLockFIFO},
		{"LockCancelWhileWaiting", testLockCancelWaiting},
		{"LockCancelAfterWake", testLockCancelAfterWake},
		{"LockNoBarging", testLockNoBarging},
		{"LockCancelAndReleaseInOneIteration", testLockCancelAndRelease},
		{"LockFIFOUnderCancellation", testLockFIFOUnderCancellation},
		{"Event", testEvent},
		{"ConditionNotify", testConditionNotify},
		{"ConditionCancelReacquires", testConditionCancel},
		{"ConditionWaitFor", testConditionWaitFor},
		{"SemaphoreFIFO", testSemaphoreFIFO},
		{"SemaphoreCancel", testSemaphoreCancel},
		{"BoundedSemaphoreOverRelease", testBoundedSemaphore},
		{"BarrierRounds", testBarrierRounds},
		{"BarrierAbortReset", testBarrierAbort},
		{"BarrierCancelledWaiterLeaves", testBarrierCancel},
		{"QueueOrders", testQueueOrders},
		{"QueueBounded", testQueueBounded},
		{"QueueCancelledGetterTakesNothing", testQueueCancelGet},
		{"QueueCancelledPutterPutsNothing", testQueueCancelPut},
		{"QueueNewGetOvertakesWoken", testQueueNewGetOvertakes},
		{"QueueNewPutOvertakesWoken", testQueueNewPutOvertakes},
		{"QueueJoin", testQueueJoin},
		{"QueueShutdown", testQueueShutdown},
		{"QueueShutdownImmediate", testQueueShutdownImmediate},
		{"TaskGroupResults", testGroupResults},
		{"TaskGroupFailureCancelsSiblings", testGroupFailure},
		{"TaskGroupErrorsJoined", testGroupErrorsJoined},
		{"TaskGroupBodyError", testGroupBodyError},
		{"TaskGroupBodyPanics", testGroupBodyPanics},
		{"TaskGroupParentCancelled", testGroupParentCancelled},
		{"TaskGroupNested", testGroupNested},
		{"TaskGroupRedeliversSwallowedCancel", testGroupRedeliversSwallowedCancel},
		{"TaskGroupFailureWakesParent", testGroupFailureWakesParent},
		{"TaskGroupClosed", testGroupClosed},
		{"WaitForCancelledAndTimedOut", testWaitForCancelledAndTimedOut},
		{"WaitModes", testWaitModes},
		{"WaitTimeout", testWaitTimeout},
		{"WaitTimeoutZero", testWaitTimeoutZero},
		{"WaitAlreadyDone", testWaitAlreadyDone},
		{"AsCompleted", testAsCompleted},
		{"Shield", testShield},
		{"TimeoutExpires", testTimeoutExpires},
		{"TimeoutReschedule", testTimeoutReschedule},
		{"TimeoutOuterCancel", testTimeoutOuterCancel},
		{"TypedResults", testTyped},
		{"TaskContext", testTaskContext},
		{"TaskContextAfterTimeout", testContextAfterTimeout},
		{"AwaitContext", testAwaitContext},
		{"SemaphoreLeaveOutOfOrder", testSemaphoreLeaveOutOfOrder},
		{"SemaphorePromisedPermit", testSemaphorePromisedPermit},
		{"SemaphoreLeaverWakesAllowed", testSemaphoreLeaverWakesAllowed},
		{"RandomizedAgainstModel", testModel},
		{"RandomizedCrowd", testModelCrowd},
	})
}

// events is the order things happened in, across tasks.
type events struct{ got []string }

func (g *events) add(format string, args ...any) { g.got = append(g.got, fmt.Sprintf(format, args...)) }

func (g *events) want(tb testing.TB, want ...string) {
	tb.Helper()
	if fmt.Sprint(g.got) != fmt.Sprint(want) {
		tb.Fatalf("got %q, want %q", g.got, want)
	}
}

// run is CreateTask for a function with no result.
func run(l *loopbench.Loop, fn func(t *loopbench.Task) error) *loopbench.Task {
	return l.CreateTask(func(t *loopbench.Task) (any, error) { return nil, fn(t) })
}

// iterations runs n iterations.
func iterations(tb testing.TB, l *loopbench.Loop, n int) {
	tb.Helper()
	for range n {
		RunOnce(tb, l)
	}
}

// holder acquires m under name, logs it, and releases it at once.
func holder(l *loopbench.Loop, m *loopbench.Lock, g *events, name string) *loopbench.Task {
	return run(l, func(t *loopbench.Task) error {
		if err := m.Acquire(t); err != nil {
			g.add("%s: %v", name, err)
			return err
		}
		g.add("%s", name)
		return m.Release()
	})
}

func testLockFIFO(t *testing.T, l *loopbench.Loop) {
	m := loopbench.NewLock()
	var g events
	if err := m.Release(); !errors.Is(err, loopbench.ErrNotAcquired) {
		t.Fatalf("Release of a free lock = %v", err)
	}
	owner := run(l, func(t *loopbench.Task) error { return m.Acquire(t) })
	RunOnce(t, l)
	if !m.Locked() || !owner.Done() {
		t.Fatal("an uncontended Acquire did not take the lock at once")
	}
	tasks := []*loopbench.Task{holder(l, m, &g, "a"), holder(l, m, &g, "b"), holder(l, m, &g, "c")}
	iterations(t, l, 3)
	g.want(t) // all wait
	m.Release()
	complete(t, l, loopbench.Gather(l, tasks[0], tasks[1], tasks[2]))
	g.want(t, "a", "b", "c")
	if m.Locked() {
		t.Fatal("lock still held after every holder released")
	}
}

func testLockCancelWaiting(t *testing.T, l *loopbench.Loop) {
	m := loopbench.NewLock()
	var g events
	m.Acquire(nil) // free: takes it without waiting
	a, b, c := holder(l, m, &g, "a"), holder(l, m, &g, "b"), holder(l, m, &g, "c")
	RunOnce(t, l)
	b.Cancel("")
	RunOnce(t, l)
	m.Release()
	complete(t, l, loopbench.GatherErrors(l, a, b, c))
	g.want(t, "b: loopbench: cancelled", "a", "c")
	if m.Locked() {
		t.Fatal("the cancelled waiter took the lock")
	}
}

// testLockCancelAfterWake: a waiter woken by Release and cancelled before
// it runs does not take the lock, and passes the wake-up on.
func testLockCancelAfterWake(t *testing.T, l *loopbench.Loop) {
	m := loopbench.NewLock()
	var g events
	m.Acquire(nil)
	a, b := holder(l, m, &g, "a"), holder(l, m, &g, "b")
	RunOnce(t, l)
	m.Release() // wakes a
	a.Cancel("")
	complete(t, l, loopbench.GatherErrors(l, a, b))
	g.want(t, "a: loopbench: cancelled", "b")
	if m.Locked() {
		t.Fatal("lock held at the end")
	}
}

// testLockNoBarging: while a woken waiter has not run yet, a newcomer
// queues behind it.
func testLockNoBarging(t *testing.T, l *loopbench.Loop) {
	m := loopbench.NewLock()
	var g events
	m.Acquire(nil)
	a := holder(l, m, &g, "a")
	RunOnce(t, l)
	m.Release() // wakes a; a runs next iteration
	late := holder(l, m, &g, "late")
	complete(t, l, loopbench.Gather(l, a, late))
	g.want(t, "a", "late")
}

func testEvent(t *testing.T, l *loopbench.Loop) {
	e := loopbench.NewEvent()
	var g events
	waiter := func(name string) *loopbench.Task {
		return run(l, func(t *loopbench.Task) error {
			err := e.Wait(t)
			g.add("%s %v", name, err)
			return err
		})
	}
	a, b := waiter("a"), waiter("b")
	iterations(t, l, 2)
	g.want(t)
	e.Set()
	e.Set()
	complete(t, l, loopbench.Gather(l, a, b))
	g.want(t, "a <nil>", "b <nil>")
	if !e.IsSet() {
		t.Fatal("IsSet false after Set")
	}
	complete(t, l, waiter("set"))
	e.Clear()
	c := waiter("c")
	iterations(t, l, 2)
	c.Cancel("")
	complete(t, l, loopbench.GatherErrors(l, c))
	g.want(t, "a <nil>", "b <nil>", "set <nil>", "c loopbench: cancelled")
}

func testConditionNotify(t *testing.T, l *loopbench.Loop) {
	c := loopbench.NewCondition(nil)
	var g events
	if err := c.Wait(nil); !errors.Is(err, loopbench.ErrNotAcquired) {
		t.Fatalf("Wait without the lock = %v", err)
	}
	if err := c.Notify(1); !errors.Is(err, loopbench.ErrNotAcquired) {
		t.Fatalf("Notify without the lock = %v", err)
	}
	var tasks []loopbench.Awaitable
	for _, name := range []string{"a", "b", "c"} {
		tasks = append(tasks, run(l, func(t *loopbench.Task) error {
			if err := c.Acquire(t); err != nil {
				return err
			}
			defer c.Release()
			err := c.Wait(t)
			g.add("%s locked=%v", name, c.Locked())
			return err
		}))
	}
	iterations(t, l, 3)
	notify := func(all bool, n int) {
		complete(t, l, run(l, func(t *loopbench.Task) error {
			c.Acquire(t)
			defer c.Release()
			if all {
				return c.NotifyAll()
			}
			return c.Notify(n)
		}))
		iterations(t, l, 3)
	}
	notify(false, 1)
	g.want(t, "a locked=true")
	notify(true, 0)
	complete(t, l, loopbench.Gather(l, tasks...))
	g.want(t, "a locked=true", "b locked=true", "c locked=true")
}

// testConditionCancel: a cancelled Wait takes the lock again before it
// returns, and a notification it had goes to the next waiter.
func testConditionCancel(t *testing.T, l *loopbench.Loop) {
	c := loopbench.NewCondition(loopbench.NewLock())
	var g events
	waiter := func(name string) *loopbench.Task {
		return run(l, func(t *loopbench.Task) error {
			c.Acquire(t)
			err := c.Wait(t)
			g.add("%s %v locked=%v", name, err, c.Locked())
			c.Release()
			return err
		})
	}
	a, b := waiter("a"), waiter("b")
	iterations(t, l, 2)
	c.Acquire(nil)
	c.Notify(1) // wakes a
	a.Cancel("")
	c.Release()
	complete(t, l, loopbench.GatherErrors(l, a, b))
	g.want(t, "a loopbench: cancelled locked=true", "b <nil> locked=true")
}

func testConditionWaitFor(t *testing.T, l *loopbench.Loop) {
	c := loopbench.NewCondition(nil)
	n, checks := 0, 0
	w := run(l, func(t *loopbench.Task) error {
		c.Acquire(t)
		defer c.Release()
		return c.WaitFor(t, func() bool { checks++; return n >= 3 })
	})
	for range 3 {
		iterations(t, l, 2)
		c.Acquire(nil)
		n++
		c.NotifyAll()
		c.Release()
	}
	if _, err := complete(t, l, w); err != nil || checks != 4 {
		t.Fatalf("WaitFor = %v after %d checks, want nil after 4", err, checks)
	}
}

func testSemaphoreFIFO(t *testing.T, l *loopbench.Loop) {
	s := loopbench.NewSemaphore(2)
	var g events
	var held []*loopbench.Future
	var tasks []loopbench.Awaitable
	for _, name := range []string{"a", "b", "c", "d"} {
		f := l.CreateFuture()
		held = append(held, f)
		tasks = append(tasks, run(l, func(t *loopbench.Task) error {
			if err := s.Acquire(t); err != nil {
				return err
			}
			g.add("%s", name)
			t.Await(f)
			return s.Release()
		}))
	}
	iterations(t, l, 2)
	g.want(t, "a", "b")
	if !s.Locked() || s.Value() != 0 {
		t.Fatalf("Locked %v, Value %d with both permits taken", s.Locked(), s.Value())
	}
	held[1].SetResult(nil)
	iterations(t, l, 3)
	g.want(t, "a", "b", "c")
	held[0].SetResult(nil)
	held[2].SetResult(nil)
	held[3].SetResult(nil)
	complete(t, l, loopbench.Gather(l, tasks...))
	g.want(t, "a", "b", "c", "d")
	if s.Value() != 2 || s.Locked() {
		t.Fatalf("Value %d, Locked %v at the end", s.Value(), s.Locked())
	}
}

// testSemaphoreCancel: a waiter cancelled before or after its wake-up
// takes no permit, and the permit goes to the next waiter.
func testSemaphoreCancel(t *testing.T, l *loopbench.Loop) {
	s := loopbench.NewSemaphore(0)
	var g events
	waiter := func(name string) *loopbench.Task {
		return run(l, func(t *loopbench.Task) error {
			err := s.Acquire(t)
			g.add("%s %v", name, err)
			return err
		})
	}
	a, b, c := waiter("a"), waiter("b"), waiter("c")
	RunOnce(t, l)
	a.Cancel("") // before any wake-up
	RunOnce(t, l)
	s.Release()  // wakes b
	b.Cancel("") // after its wake-up: the permit passes to c
	complete(t, l, loopbench.GatherErrors(l, a, b, c))
	g.want(t, "a loopbench: cancelled", "b loopbench: cancelled", "c <nil>")
	if s.Value() != 0 {
		t.Fatalf("Value %d, want 0: c holds the only permit", s.Value())
	}
}

// testSemaphoreLeaveOutOfOrder: a cancelled waiter leaves the list
// before the waiter woken ahead of it, and a newcomer queues in between;
// the newcomer is still found, and woken when the permit comes back.
func testSemaphoreLeaveOutOfOrder(t *testing.T, l *loopbench.Loop) {
	s := loopbench.NewSemaphore(0)
	var g events
	waiter := func(name string) *loopbench.Task {
		return run(l, func(t *loopbench.Task) error {
			err := s.Acquire(t)
			g.add("%s %v", name, err)
			if err != nil {
				return err
			}
			return s.Release()
		})
	}
	a, b := waiter("a"), waiter("b")
	RunOnce(t, l)    // both wait
	b.Cancel("")     // b leaves in its next step
	c := waiter("c") // whose first step comes after b's
	s.Release()      // wakes a, whose step comes after c's
	if !s.Locked() {
		t.Fatal("Locked false with the only permit promised to a woken waiter")
	}
	iterations(t, l, 4)
	g.want(t, "b loopbench: cancelled", "a <nil>", "c <nil>")
	complete(t, l, loopbench.GatherErrors(l, a, b, c))
}

func testBoundedSemaphore(t *testing.T, l *loopbench.Loop) {
	s := loopbench.NewBoundedSemaphore(1)
	if err := s.Release(); !errors.Is(err, loopbench.ErrSemaphoreReleased) {
		t.Fatalf("Release beyond the bound = %v", err)
	}
	complete(t, l, run(l, func(t *loopbench.Task) error {
		if err := s.Acquire(t); err != nil {
			return err
		}
		return s.Release()
	}))
	if err := s.Release(); !errors.Is(err, loopbench.ErrSemaphoreReleased) || s.Value() != 1 {
		t.Fatalf("second Release = %v, Value %d", err, s.Value())
	}
	u := loopbench.NewSemaphore(1)
	if err := u.Release(); err != nil || u.Value() != 2 {
		t.Fatalf("an unbounded Semaphore's Release = %v, Value %d", err, u.Value())
	}
}
