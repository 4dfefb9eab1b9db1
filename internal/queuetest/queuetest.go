// Package queuetest is the conformance suite every ready queue runs, in the
// manner of testing/fstest: a ready queue is a FIFO of uint32 handle
// references with Push, TryPush, Pop and Len, Pop panicking when empty,
// and no allocation once warmed up. It also holds the burst sizes the
// queues' benchmarks share.
package queuetest

import (
	"math/rand/v2"
	"testing"
)

// Queue is the ready-queue contract. TryPush is the inlinable fast path of
// Push the loop uses: it may decline (return false) only when the queue
// must allocate or link storage; Push always succeeds, and Pop panics on an
// empty queue.
type Queue interface {
	Push(v uint32)
	Pop() uint32
	TryPush(v uint32) bool
	Len() int
}

// Run runs the conformance suite on queues made by newQueue.
func Run(t *testing.T, newQueue func() Queue) {
	t.Run("Empty", func(t *testing.T) { testEmpty(t, newQueue()) })
	t.Run("FIFO", func(t *testing.T) { testFIFO(t, newQueue()) })
	t.Run("Interleaved", func(t *testing.T) { testInterleaved(t, newQueue()) })
	t.Run("Random", func(t *testing.T) { testRandom(t, newQueue()) })
	t.Run("TryFastPaths", func(t *testing.T) { testTry(t, newQueue()) })
	t.Run("SteadyStateAllocs", func(t *testing.T) { testAllocs(t, newQueue()) })
}

// testTry mixes TryPush with Push and Pop against a model, and checks that
// the fast path succeeds most of the time once warmed up.
func testTry(t *testing.T, q Queue) {
	var model []uint32
	r := rand.New(rand.NewPCG(7, 8))
	fast, tries := 0, 0
	for i := range 50000 {
		if r.IntN(100) < 51 {
			v := r.Uint32()
			tries++
			if q.TryPush(v) {
				fast++
			} else {
				q.Push(v)
			}
			model = append(model, v)
		} else if len(model) > 0 {
			if v := q.Pop(); v != model[0] {
				t.Fatalf("op %d: popped %d, want %d", i, v, model[0])
			}
			model = model[1:]
		}
		if q.Len() != len(model) {
			t.Fatalf("op %d: Len = %d, want %d", i, q.Len(), len(model))
		}
	}
	if fast*10 < tries*9 {
		t.Fatalf("TryPush took %d of %d pushes, want at least 90%%", fast, tries)
	}
}

func testEmpty(t *testing.T, q Queue) {
	if q.Len() != 0 {
		t.Fatalf("new queue Len = %d, want 0", q.Len())
	}
	if !panics(func() { q.Pop() }) {
		t.Fatal("Pop on an empty queue did not panic")
	}
	q.Push(7)
	q.Pop()
	if !panics(func() { q.Pop() }) {
		t.Fatal("Pop on a drained queue did not panic")
	}
}

func panics(f func()) (p bool) {
	defer func() { p = recover() != nil }()
	f()
	return false
}

func testFIFO(t *testing.T, q Queue) {
	// Sizes straddle block and ring boundaries.
	for _, n := range []int{1, 63, 64, 65, 1000, 5000} {
		for i := range n {
			q.Push(uint32(i))
		}
		if q.Len() != n {
			t.Fatalf("after %d pushes Len = %d", n, q.Len())
		}
		for i := range n {
			if v := q.Pop(); v != uint32(i) {
				t.Fatalf("n=%d: pop %d = %d, want %d", n, i, v, i)
			}
		}
		if q.Len() != 0 {
			t.Fatalf("n=%d: Len after draining = %d", n, q.Len())
		}
	}
}

// testInterleaved keeps the queue partly full while its ends wrap around
// the ring and cross block boundaries many times.
func testInterleaved(t *testing.T, q Queue) {
	next, want := uint32(0), uint32(0)
	for round := range 200 {
		for range round%97 + 1 {
			q.Push(next)
			next++
		}
		for range round % 89 {
			if q.Len() == 0 {
				break
			}
			if v := q.Pop(); v != want {
				t.Fatalf("round %d: pop = %d, want %d", round, v, want)
			}
			want++
		}
		if q.Len() != int(next-want) {
			t.Fatalf("round %d: Len = %d, want %d", round, q.Len(), next-want)
		}
	}
}

func testRandom(t *testing.T, q Queue) {
	r := rand.New(rand.NewPCG(1, 2))
	var model []uint32
	for i := range 100000 {
		if r.IntN(100) < 52 || len(model) == 0 {
			v := r.Uint32()
			q.Push(v)
			model = append(model, v)
		} else {
			if v := q.Pop(); v != model[0] {
				t.Fatalf("op %d: pop = %d, want %d", i, v, model[0])
			}
			model = model[1:]
		}
		if q.Len() != len(model) {
			t.Fatalf("op %d: Len = %d, want %d", i, q.Len(), len(model))
		}
	}
}

func testAllocs(t *testing.T, q Queue) {
	Fill(q, 1000) // warm up to the working size
	allocs := testing.AllocsPerRun(100, func() { Fill(q, 1000) })
	if allocs != 0 {
		t.Fatalf("push+pop of 1000 items allocates %.1f times in steady state, want 0", allocs)
	}
}

// Fill pushes n items and pops them all: one burst of a ready queue.
func Fill(q Queue, n int) {
	for i := range n {
		q.Push(uint32(i))
	}
	for range n {
		q.Pop()
	}
}

// Batches are the burst sizes the push/pop benchmarks of the ready-queue
// packages use.
var Batches = []int{1, 64, 1000, 100000}
