package looptest

import (
	"errors"
	"fmt"
	"testing"

	"github.com/loopbench/loopbench"
)

func barrierWaiter(l *loopbench.Loop, b *loopbench.Barrier, g *events, name string) *loopbench.Task {
	return run(l, func(t *loopbench.Task) error {
		i, err := b.Wait(t)
		g.add("%s %d %v", name, i, err)
		return err
	})
}

func testBarrierRounds(t *testing.T, l *loopbench.Loop) {
	b := loopbench.NewBarrier(3)
	for round := range 2 {
		var g events
		x, y := barrierWaiter(l, b, &g, "x"), barrierWaiter(l, b, &g, "y")
		iterations(t, l, 3)
		if g.want(t); b.NWaiting() != 2 {
			t.Fatalf("round %d: NWaiting %d, want 2", round, b.NWaiting())
		}
		z := barrierWaiter(l, b, &g, "z")
		complete(t, l, loopbench.Gather(l, x, y, z))
		g.want(t, "z 2 <nil>", "x 0 <nil>", "y 1 <nil>")
		if b.NWaiting() != 0 || b.Broken() {
			t.Fatalf("round %d: NWaiting %d, Broken %v after the round", round, b.NWaiting(), b.Broken())
		}
	}
}

func testBarrierAbort(t *testing.T, l *loopbench.Loop) {
	b := loopbench.NewBarrier(3)
	var g events
	x := barrierWaiter(l, b, &g, "x")
	iterations(t, l, 2)
	b.Abort()
	late := barrierWaiter(l, b, &g, "late")
	complete(t, l, loopbench.GatherErrors(l, x, late))
	g.want(t, "x 0 loopbench: barrier is broken", "late 0 loopbench: barrier is broken")
	if !b.Broken() {
		t.Fatal("Broken false after Abort")
	}
	b.Reset()
	g = events{}
	var ts []loopbench.Awaitable
	for _, name := range []string{"p", "q", "r"} {
		ts = append(ts, barrierWaiter(l, b, &g, name))
	}
	complete(t, l, loopbench.Gather(l, ts...))
	g.want(t, "r 2 <nil>", "p 0 <nil>", "q 1 <nil>")
}

// testBarrierCancel: as in asyncio, a cancelled waiter leaves the round
// without breaking it; the round then needs another party.
func testBarrierCancel(t *testing.T, l *loopbench.Loop) {
	b := loopbench.NewBarrier(2)
	var g events
	x := barrierWaiter(l, b, &g, "x")
	iterations(t, l, 2)
	x.Cancel("")
	complete(t, l, loopbench.GatherErrors(l, x))
	if b.Broken() || b.NWaiting() != 0 {
		t.Fatalf("after a cancelled waiter: Broken %v, NWaiting %d", b.Broken(), b.NWaiting())
	}
	y, z := barrierWaiter(l, b, &g, "y"), barrierWaiter(l, b, &g, "z")
	complete(t, l, loopbench.Gather(l, y, z))
	g.want(t, "x 0 loopbench: cancelled", "z 1 <nil>", "y 0 <nil>")
}

func testQueueOrders(t *testing.T, l *loopbench.Loop) {
	less := func(a, b int) bool { return a < b }
	for _, c := range []struct {
		name string
		q    *loopbench.Queue[int]
		want string
	}{
		{"fifo", loopbench.NewQueue[int](0), "[3 1 4 1 5]"},
		{"lifo", loopbench.NewLifoQueue[int](0), "[5 1 4 1 3]"},
		{"priority", loopbench.NewPriorityQueue(0, less), "[1 1 3 4 5]"},
	} {
		for _, v := range []int{3, 1, 4, 1, 5} {
			if err := c.q.PutNowait(v); err != nil {
				t.Fatal(err)
			}
		}
		var got []int
		for !c.q.Empty() {
			v, _ := c.q.GetNowait()
			got = append(got, v)
		}
		if fmt.Sprint(got) != c.want {
			t.Errorf("%s queue gave %v, want %s", c.name, got, c.want)
		}
		if _, err := c.q.GetNowait(); !errors.Is(err, loopbench.ErrQueueEmpty) {
			t.Errorf("%s: GetNowait of an empty queue = %v", c.name, err)
		}
	}
}

func testQueueBounded(t *testing.T, l *loopbench.Loop) {
	q := loopbench.NewQueue[string](2)
	var g events
	q.PutNowait("a")
	q.PutNowait("b")
	if err := q.PutNowait("x"); !errors.Is(err, loopbench.ErrQueueFull) || !q.Full() || q.Len() != 2 {
		t.Fatalf("PutNowait to a full queue = %v (Full %v, Len %d)", err, q.Full(), q.Len())
	}
	var putters []loopbench.Awaitable
	for _, v := range []string{"c", "d"} {
		putters = append(putters, run(l, func(t *loopbench.Task) error {
			err := q.Put(t, v)
			g.add("put %s %v", v, err)
			return err
		}))
	}
	iterations(t, l, 2)
	g.want(t)
	getter := run(l, func(t *loopbench.Task) error {
		for range 4 {
			v, err := q.Get(t)
			if err != nil {
				return err
			}
			g.add("got %s", v)
		}
		return nil
	})
	complete(t, l, loopbench.Gather(l, append(putters, getter)...))
	g.want(t, "got a", "got b", "put c <nil>", "put d <nil>", "got c", "got d")
	// Getters wait in order on an empty queue.
	g = events{}
	var getters []loopbench.Awaitable
	for _, name := range []string{"x", "y"} {
		getters = append(getters, run(l, func(t *loopbench.Task) error {
			v, err := q.Get(t)
			g.add("%s got %s", name, v)
			return err
		}))
	}
	iterations(t, l, 2)
	q.PutNowait("1")
	q.PutNowait("2")
	complete(t, l, loopbench.Gather(l, getters...))
	g.want(t, "x got 1", "y got 2")
}

// testQueueCancelGet: a getter cancelled before or after its wake-up takes
// nothing; the item goes to the next getter.
func testQueueCancelGet(t *testing.T, l *loopbench.Loop) {
	q := loopbench.NewQueue[int](0)
	var g events
	getter := func(name string) *loopbench.Task {
		return run(l, func(t *loopbench.Task) error {
			v, err := q.Get(t)
			g.add("%s %d %v", name, v, err)
			return err
		})
	}
	a, b, c := getter("a"), getter("b"), getter("c")
	RunOnce(t, l)
	a.Cancel("")
	RunOnce(t, l)
	q.PutNowait(7) // wakes b
	b.Cancel("")
	complete(t, l, loopbench.GatherErrors(l, a, b, c))
	g.want(t, "a 0 loopbench: cancelled", "b 0 loopbench: cancelled", "c 7 <nil>")
	if q.Len() != 0 {
		t.Fatalf("Len %d, want 0", q.Len())
	}
}

func testQueueCancelPut(t *testing.T, l *loopbench.Loop) {
	q := loopbench.NewQueue[int](1)
	var g events
	q.PutNowait(0)
	putter := func(v int) *loopbench.Task {
		return run(l, func(t *loopbench.Task) error {
			err := q.Put(t, v)
			g.add("put %d %v", v, err)
			return err
		})
	}
	a, b := putter(1), putter(2)
	RunOnce(t, l)
	q.GetNowait() // wakes a
	a.Cancel("")
	complete(t, l, loopbench.GatherErrors(l, a, b))
	g.want(t, "put 1 loopbench: cancelled", "put 2 <nil>")
	if v, _ := q.GetNowait(); v != 2 || !q.Empty() {
		t.Fatalf("queue held %d, want only 2", v)
	}
}

func testQueueJoin(t *testing.T, l *loopbench.Loop) {
	q := loopbench.NewQueue[int](0)
	var g events
	complete(t, l, run(l, func(t *loopbench.Task) error { return q.Join(t) })) // nothing put: at once
	for i := range 3 {
		q.PutNowait(i)
	}
	joiner := run(l, func(t *loopbench.Task) error {
		err := q.Join(t)
		g.add("joined %v", err)
		return err
	})
	iterations(t, l, 2)
	for range 3 {
		q.GetNowait()
	}
	iterations(t, l, 2)
	g.want(t) // taken, not done
	for i := range 3 {
		q.TaskDone()
		iterations(t, l, 2)
		if joiner.Done() != (i == 2) {
			t.Fatalf("after %d TaskDone, joiner done = %v", i+1, joiner.Done())
		}
	}
	g.want(t, "joined <nil>")
	if err := q.TaskDone(); !errors.Is(err, loopbench.ErrTaskDone) {
		t.Fatalf("a TaskDone too many = %v", err)
	}
}

func testQueueShutdown(t *testing.T, l *loopbench.Loop) {
	empty := loopbench.NewQueue[int](0)
	full := loopbench.NewQueue[int](1)
	full.PutNowait(1)
	var g events
	getter := run(l, func(t *loopbench.Task) error {
		_, err := empty.Get(t)
		g.add("get %v", err)
		return err
	})
	putter := run(l, func(t *loopbench.Task) error {
		err := full.Put(t, 2)
		g.add("put %v", err)
		return err
	})
	iterations(t, l, 2)
	empty.Shutdown(false)
	full.Shutdown(false)
	complete(t, l, loopbench.GatherErrors(l, getter, putter))
	g.want(t, "get loopbench: queue is shut down", "put loopbench: queue is shut down")
	if err := full.PutNowait(3); !errors.Is(err, loopbench.ErrQueueShutdown) {
		t.Fatalf("PutNowait after Shutdown = %v", err)
	}
	// What is left can still be taken, then Get fails.
	v, err := complete(t, l, l.CreateTask(func(t *loopbench.Task) (any, error) { return full.Get(t) }))
	if v != 1 || err != nil {
		t.Fatalf("Get after Shutdown = %v, %v; want the item left", v, err)
	}
	if _, err := full.GetNowait(); !errors.Is(err, loopbench.ErrQueueShutdown) {
		t.Fatalf("GetNowait of a shut, empty queue = %v", err)
	}
}

func testQueueShutdownImmediate(t *testing.T, l *loopbench.Loop) {
	q := loopbench.NewQueue[int](0)
	for i := range 3 {
		q.PutNowait(i)
	}
	q.GetNowait() // taken, not done: Join still waits for it
	joiner := run(l, func(t *loopbench.Task) error { return q.Join(t) })
	iterations(t, l, 2)
	q.Shutdown(true)
	if !q.Empty() {
		t.Fatalf("Len %d after an immediate Shutdown", q.Len())
	}
	iterations(t, l, 2)
	if joiner.Done() {
		t.Fatal("Join returned with an item taken and not done")
	}
	q.TaskDone()
	if _, err := complete(t, l, joiner); err != nil {
		t.Fatal(err)
	}
}
