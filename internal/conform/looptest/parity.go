package looptest

// Behaviours of the coordination primitives under cancellation where
// loopbench once differed from asyncio (TestCoordinationDifferential
// found them).

import (
	"errors"
	"testing"
	"time"

	"github.com/loopbench/loopbench"
)

// testQueueNewGetOvertakes: as in asyncio, a Get that finds an item takes
// it, even when a waiting Get was woken for it and has not run yet; the
// woken one finds the queue empty and waits again.
func testQueueNewGetOvertakes(t *testing.T, l *loopbench.Loop) {
	q := loopbench.NewQueue[int](0)
	var g events
	getter := func(name string) *loopbench.Task {
		return run(l, func(t *loopbench.Task) error {
			v, err := q.Get(t)
			g.add("%s got %d", name, v)
			return err
		})
	}
	a := getter("a")
	RunOnce(t, l) // a waits
	var b *loopbench.Task
	l.CallSoon(func() {
		b = getter("b") // b's first step comes before a's wake-up
		q.PutNowait(1)
	})
	iterations(t, l, 3)
	g.want(t, "b got 1")
	q.PutNowait(2)
	complete(t, l, loopbench.Gather(l, a, b))
	g.want(t, "b got 1", "a got 2")
}

// testQueueNewPutOvertakes: as in asyncio, a Put that finds a free slot
// takes it, even when a waiting Put was woken for it and has not run
// yet; the woken one finds the queue full and waits again.
func testQueueNewPutOvertakes(t *testing.T, l *loopbench.Loop) {
	q := loopbench.NewQueue[int](1)
	q.PutNowait(0)
	putter := func(v int) *loopbench.Task { return run(l, func(t *loopbench.Task) error { return q.Put(t, v) }) }
	a := putter(1)
	RunOnce(t, l) // a waits
	var b *loopbench.Task
	l.CallSoon(func() {
		b = putter(2) // b's first step comes before a's wake-up
		q.GetNowait()
	})
	iterations(t, l, 3)
	if v, err := q.GetNowait(); v != 2 || err != nil {
		t.Fatalf("the queue held %d (%v), want the newcomer's 2", v, err)
	}
	complete(t, l, loopbench.Gather(l, a, b))
	if v, err := q.GetNowait(); v != 1 || err != nil || !q.Empty() {
		t.Fatalf("the queue held %d (%v), want only the woken Put's 1", v, err)
	}
}

// testWaitForCancelledAndTimedOut: the task in WaitFor is cancelled, and
// the timeout passes before the inner task has finished (it handles its
// cancellation by awaiting a future, which only the timeout's
// cancellation ends): as asyncio's wait_for (3.12 and later), the
// cancellation from outside wins and WaitFor returns ErrCancelled, not
// ErrTimeout.
func testWaitForCancelledAndTimedOut(t *testing.T, l *loopbench.Loop) {
	cleanup := l.CreateFuture()
	inner := run(l, func(t *loopbench.Task) error {
		err := loopbench.Sleep(t, time.Hour)
		t.Await(cleanup)
		return err
	})
	var got error
	outer := run(l, func(t *loopbench.Task) error {
		_, got = loopbench.WaitFor(t, inner, time.Millisecond)
		return got
	})
	RunOnce(t, l) // both wait
	outer.Cancel("")
	complete(t, l, loopbench.GatherErrors(l, outer, inner))
	if !errors.Is(got, loopbench.ErrCancelled) || errors.Is(got, loopbench.ErrTimeout) || !cleanup.Cancelled() {
		t.Fatalf("WaitFor = %v (the cleanup cancelled by the timeout: %v), want ErrCancelled", got, cleanup.Cancelled())
	}
}

// testGroupRedeliversSwallowedCancel: a task's group has failed (a child
// returned an error) and waits for a child that handles its cancellation
// slowly; the task is cancelled meanwhile. As with asyncio 3.13, the group
// returns the failure, and the cancellation, swallowed by the wait, is
// delivered again at the task's next await.
func testGroupRedeliversSwallowedCancel(t *testing.T, l *loopbench.Loop) {
	boom := errors.New("boom")
	cleanup := l.CreateFuture()
	var groupErr, nextErr error
	parent := run(l, func(t *loopbench.Task) error {
		groupErr = loopbench.WithTaskGroup(t, func(g *loopbench.TaskGroup) error {
			g.CreateTask(func(*loopbench.Task) (any, error) { return nil, boom })
			g.CreateTask(func(t *loopbench.Task) (any, error) {
				for !cleanup.Done() { // a cancellation cancels only the shield
					t.Await(loopbench.Shield(l, cleanup))
				}
				return nil, nil
			})
			return nil
		})
		nextErr = loopbench.Sleep(t, 0)
		return nextErr
	})
	iterations(t, l, 4) // the group failed and waits for the second child
	parent.Cancel("")
	iterations(t, l, 2)
	cleanup.SetResult(nil)
	complete(t, l, loopbench.GatherErrors(l, parent))
	if !errors.Is(groupErr, boom) || errors.Is(groupErr, loopbench.ErrCancelled) {
		t.Fatalf("the group returned %v, want the child's failure", groupErr)
	}
	if !errors.Is(nextErr, loopbench.ErrCancelled) {
		t.Fatalf("the await after the group returned %v, want the cancellation the group swallowed", nextErr)
	}
}

// testSemaphorePromisedPermit: as asyncio's Semaphore, a release promises
// the permit to the waiter it wakes at once: while that waiter has not
// run, the semaphore is locked (a waiter is there) even with a permit
// left, and a BoundedSemaphore's bound counts only the permits neither
// taken nor promised, so one more Release is accepted.
func testSemaphorePromisedPermit(t *testing.T, l *loopbench.Loop) {
	s := loopbench.NewBoundedSemaphore(2)
	s.Acquire(nil)
	s.Acquire(nil) // both permits taken without waiting
	c := run(l, func(t *loopbench.Task) error { return s.Acquire(t) })
	RunOnce(t, l) // c waits
	s.Release()   // wakes c, promising it the permit
	s.Release()   // a permit left
	if !s.Locked() || s.Value() != 2 {
		t.Fatalf("Locked %v, Value %d; want locked (c is woken and has not run), 2 not taken", s.Locked(), s.Value())
	}
	if err := s.Release(); err != nil {
		t.Fatalf("a Release with one permit promised and one left = %v, want accepted as asyncio does", err)
	}
	complete(t, l, c)
	if s.Value() != 2 || s.Locked() {
		t.Fatalf("Value %d, Locked %v after c took its permit; want 2 left", s.Value(), s.Locked())
	}
}

// testGroupFailureWakesParent: as asyncio's TaskGroup, a task's failure
// wakes the group's task waiting for the others (it cancels it, and
// withdraws that), so when the last task finishes in the iteration the
// failure is handled, the group returns an iteration earlier than a
// wake-up by the last task alone would let it: here in the fifth.
func testGroupFailureWakesParent(t *testing.T, l *loopbench.Loop) {
	boom := errors.New("boom")
	var groupErr error
	parent := run(l, func(t *loopbench.Task) error {
		groupErr = loopbench.WithTaskGroup(t, func(g *loopbench.TaskGroup) error {
			g.CreateTask(func(t *loopbench.Task) (any, error) {
				loopbench.Sleep(t, 0)
				return nil, loopbench.Sleep(t, 0) // ends in iteration 4, its done callback runs in 5
			})
			g.CreateTask(func(t *loopbench.Task) (any, error) {
				loopbench.Sleep(t, 0)
				return nil, boom // ends in iteration 3, handled in 4
			})
			return nil
		})
		return nil
	})
	iterations(t, l, 5)
	if !parent.Done() || !errors.Is(groupErr, boom) {
		t.Fatalf("after 5 iterations: done %v, group error %v; want done with the failure", parent.Done(), groupErr)
	}
	if _, err := parent.Result(); err != nil {
		t.Fatalf("the group's task ended with %v: the group's own cancellation was not withdrawn", err)
	}
}

// testSemaphoreLeaverWakesAllowed: as asyncio 3.13's Semaphore, a waiter
// that takes its permit wakes as many waiters as there are permits left,
// not one: e and f queue behind the woken d with two permits left; d,
// taking its permit, wakes both, so f has its permit in the third
// iteration, not the fourth.
func testSemaphoreLeaverWakesAllowed(t *testing.T, l *loopbench.Loop) {
	s := loopbench.NewSemaphore(3)
	for range 3 {
		s.Acquire(nil)
	}
	var g events
	acquirer := func(name string, yield bool) *loopbench.Task {
		return run(l, func(t *loopbench.Task) error {
			if yield {
				loopbench.Sleep(t, 0) // acquire in the second iteration
			}
			if err := s.Acquire(t); err != nil {
				return err
			}
			g.add("%s", name)
			return nil
		})
	}
	d, e, f := acquirer("d", false), acquirer("e", true), acquirer("f", true)
	releaser := run(l, func(t *loopbench.Task) error {
		s.Release() // wakes d
		s.Release() // two permits left, no one else waits yet
		return s.Release()
	})
	iterations(t, l, 3)
	g.want(t, "d", "e", "f")
	complete(t, l, loopbench.Gather(l, d, e, f, releaser))
	if s.Value() != 0 {
		t.Fatalf("Value %d, want 0: d, e and f hold the three permits", s.Value())
	}
}
