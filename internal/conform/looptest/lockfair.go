package looptest

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/loopbench/loopbench"
)

// testLockCancelAndRelease: a, b, c, d wait on a held Lock, each to hold
// it for an iteration; a is cancelled and the lock released in the same
// iteration. As asyncio's Lock, the release wakes no one while the first
// waiter is a, already done; a, leaving, wakes b; then c and d follow in
// order (a wake-up passed on past b as well would let c find the lock
// taken and queue again behind d).
func testLockCancelAndRelease(t *testing.T, l *loopbench.Loop) {
	m := loopbench.NewLock()
	var g events
	m.Acquire(nil)
	var tasks []loopbench.Awaitable
	for _, name := range []string{"a", "b", "c", "d"} {
		tasks = append(tasks, run(l, func(t *loopbench.Task) error {
			if err := m.Acquire(t); err != nil {
				g.add("%s: %v", name, err)
				return err
			}
			g.add("%s", name)
			loopbench.Sleep(t, 0)
			return m.Release()
		}))
	}
	RunOnce(t, l) // all wait
	l.CallSoon(func() {
		tasks[0].(*loopbench.Task).Cancel("")
		m.Release()
	})
	complete(t, l, loopbench.GatherErrors(l, tasks...))
	g.want(t, "a: loopbench: cancelled", "b", "c", "d")
	if m.Locked() {
		t.Fatal("lock held at the end")
	}
}

// testLockFIFOUnderCancellation: 40 tasks queue on a Lock, each holding
// it for an iteration; at random iterations random waiters are
// cancelled, some in the iteration that releases the lock. Those not
// cancelled take the lock in the order they queued, each once.
func testLockFIFOUnderCancellation(t *testing.T, l *loopbench.Loop) {
	for seed := range uint64(3) {
		t.Run(fmt.Sprint("seed=", seed), func(t *testing.T) { lockCrowd(t, l, seed) })
	}
}

func lockCrowd(t *testing.T, l *loopbench.Loop, seed uint64) {
	const n = 40
	r := rand.New(rand.NewPCG(seed, 41))
	m := loopbench.NewLock()
	var order []int
	tasks := make([]*loopbench.Task, n)
	aws := make([]loopbench.Awaitable, n)
	for i := range tasks {
		tasks[i] = run(l, func(t *loopbench.Task) error {
			if err := m.Acquire(t); err != nil {
				return err
			}
			order = append(order, i)
			loopbench.Sleep(t, 0) // hold it for an iteration; a cancel here only shortens the hold
			return m.Release()
		})
		aws[i] = tasks[i]
	}
	cancelled := map[int]bool{}
	for range 4 * n {
		victim := r.IntN(n)
		l.CallSoon(func() {
			if r.IntN(3) == 0 && !tasks[victim].Done() && tasks[victim].Cancel("") {
				cancelled[victim] = true
			}
		})
		RunOnce(t, l)
	}
	complete(t, l, loopbench.GatherErrors(l, aws...))
	last, seen := -1, map[int]bool{}
	for _, i := range order {
		if i <= last || seen[i] {
			t.Fatalf("acquisition order %v is not first come, first served", order)
		}
		last, seen[i] = i, true
	}
	for i := range n {
		if !seen[i] && !cancelled[i] {
			t.Fatalf("task %d was not cancelled and never took the lock (order %v)", i, order)
		}
	}
	if m.Locked() {
		t.Fatal("lock held at the end")
	}
}
