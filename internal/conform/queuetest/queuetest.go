// Package queuetest is the conformance suite every ready queue runs, in the
// manner of testing/fstest: a ready queue is a FIFO of callbacks with
// absolute positions (Push, TryPush, Pop, Len, Head, At, Clear, Release),
// Pop panicking when empty, and no allocation once warmed up. It also holds
// the burst sizes the queues' benchmarks share.
package queuetest

import (
	"math/rand/v2"
	"testing"
)

// Queue is the ready-queue contract.
//
// Positions are absolute: the n-th item ever pushed has position n-1, and
// Head is the position of the oldest queued item (the number popped). Push
// and TryPush return the position they used. TryPush is the inlinable fast
// path of Push the loop uses: it may decline (return false) only when the
// queue must allocate or link storage; Push always succeeds, and Pop
// panics on an empty queue. At and Clear look up and nil out a queued
// position and report false for any other. Release drops the references
// popped items left behind.
type Queue interface {
	Push(fn func()) uint64
	TryPush(fn func()) (uint64, bool)
	Pop() func()
	Len() int
	Head() uint64
	At(pos uint64) (func(), bool)
	Clear(pos uint64) bool
	Release()
}

// Run runs the conformance suite on queues made by newQueue.
func Run(t *testing.T, newQueue func() Queue) {
	t.Run("Empty", func(t *testing.T) { testEmpty(t, newQueue()) })
	t.Run("FIFO", func(t *testing.T) { testFIFO(t, newQueue()) })
	t.Run("Interleaved", func(t *testing.T) { testInterleaved(t, newQueue()) })
	t.Run("Random", func(t *testing.T) { testRandom(t, newQueue()) })
	t.Run("TryFastPaths", func(t *testing.T) { testTry(t, newQueue()) })
	t.Run("Positions", func(t *testing.T) { testPositions(t, newQueue()) })
	t.Run("SteadyStateAllocs", func(t *testing.T) { testAllocs(t, newQueue()) })
}

// model is the reference: the values of the queued items, oldest first,
// each item being a callback that records its value.
type model struct {
	t    *testing.T
	vals []int
	got  int
}

func (m *model) item(v int) func() { return func() { m.got = v } }

// pop pops from q and checks the item is the oldest of the model.
func (m *model) pop(q Queue, op int) {
	m.got = -1
	fn := q.Pop()
	if fn == nil {
		m.t.Fatalf("op %d: popped nil, want item %d", op, m.vals[0])
	}
	if fn(); m.got != m.vals[0] {
		m.t.Fatalf("op %d: popped item %d, want %d", op, m.got, m.vals[0])
	}
	m.vals = m.vals[1:]
}

func (m *model) checkLen(q Queue, op int) {
	if q.Len() != len(m.vals) {
		m.t.Fatalf("op %d: Len = %d, want %d", op, q.Len(), len(m.vals))
	}
}

// testTry mixes TryPush with Push and Pop against the model, checks the
// positions both return, and that the fast path succeeds most of the time
// once warmed up.
func testTry(t *testing.T, q Queue) {
	m := &model{t: t}
	r := rand.New(rand.NewPCG(7, 8))
	fast, tries, next := 0, 0, uint64(0)
	for i := range 50000 {
		if r.IntN(100) < 51 {
			tries++
			pos, ok := q.TryPush(m.item(i))
			if ok {
				fast++
			} else {
				pos = q.Push(m.item(i))
			}
			if pos != next {
				t.Fatalf("op %d: pushed at position %d, want %d", i, pos, next)
			}
			next++
			m.vals = append(m.vals, i)
		} else if len(m.vals) > 0 {
			m.pop(q, i)
		}
		m.checkLen(q, i)
	}
	if fast*10 < tries*9 {
		t.Fatalf("TryPush took %d of %d pushes, want at least 90%%", fast, tries)
	}
}

func testEmpty(t *testing.T, q Queue) {
	if q.Len() != 0 || q.Head() != 0 {
		t.Fatalf("new queue Len = %d, Head = %d, want 0, 0", q.Len(), q.Head())
	}
	if !panics(func() { q.Pop() }) {
		t.Fatal("Pop on an empty queue did not panic")
	}
	if _, ok := q.At(0); ok {
		t.Fatal("At(0) on an empty queue reported a queued item")
	}
	q.Push(func() {})
	q.Pop()
	if !panics(func() { q.Pop() }) {
		t.Fatal("Pop on a drained queue did not panic")
	}
	q.Release()
	if q.Len() != 0 || q.Head() != 1 {
		t.Fatalf("drained queue Len = %d, Head = %d, want 0, 1", q.Len(), q.Head())
	}
}

func panics(f func()) (p bool) {
	defer func() { p = recover() != nil }()
	f()
	return false
}

func testFIFO(t *testing.T, q Queue) {
	m := &model{t: t}
	// Sizes straddle block and ring boundaries.
	for _, n := range []int{1, 63, 64, 65, 1000, 5000} {
		for i := range n {
			q.Push(m.item(i))
			m.vals = append(m.vals, i)
		}
		m.checkLen(q, n)
		for i := range n {
			m.pop(q, i)
		}
		m.checkLen(q, n)
		q.Release()
	}
}

// testInterleaved keeps the queue partly full while its ends wrap around
// the ring and cross block boundaries many times, releasing now and then.
func testInterleaved(t *testing.T, q Queue) {
	m := &model{t: t}
	next := 0
	for round := range 200 {
		for range round%97 + 1 {
			q.Push(m.item(next))
			m.vals = append(m.vals, next)
			next++
		}
		for range round % 89 {
			if len(m.vals) == 0 {
				break
			}
			m.pop(q, round)
		}
		if round%3 == 0 {
			q.Release()
		}
		m.checkLen(q, round)
	}
}

func testRandom(t *testing.T, q Queue) {
	r := rand.New(rand.NewPCG(1, 2))
	m := &model{t: t}
	for i := range 100000 {
		switch k := r.IntN(100); {
		case k < 52 || len(m.vals) == 0:
			q.Push(m.item(i))
			m.vals = append(m.vals, i)
		case k < 99:
			m.pop(q, i)
		default:
			q.Release()
		}
		m.checkLen(q, i)
	}
}

// testPositions: At and Clear find queued items by position, whatever
// blocks or wraps lie between head and tail, and nothing else; a cleared
// item pops as nil in its turn; Release never touches a queued item.
func testPositions(t *testing.T, q Queue) {
	m := &model{t: t}
	r := rand.New(rand.NewPCG(3, 4))
	cleared := map[uint64]bool{}
	next := uint64(0)
	for i := range 20000 {
		switch k := r.IntN(100); {
		case k < 50 || len(m.vals) == 0:
			if pos := q.Push(m.item(i)); pos != next {
				t.Fatalf("op %d: pushed at position %d, want %d", i, pos, next)
			}
			next++
			m.vals = append(m.vals, i)
		case k < 90:
			popNext(t, q, m, cleared, i)
		case k < 95:
			q.Release()
		default:
			clearRandom(t, q, m, r, cleared, i)
		}
		checkAt(t, q, m, cleared, nearHead(q, m, r), i)
	}
}

// nearHead returns a random position from just before head to just past
// tail.
func nearHead(q Queue, m *model, r *rand.Rand) uint64 {
	return q.Head() + uint64(r.IntN(len(m.vals)+2)) - 1
}

// popNext pops one item; a cleared one must pop as nil.
func popNext(t *testing.T, q Queue, m *model, cleared map[uint64]bool, op int) {
	h := q.Head()
	if !cleared[h] {
		m.pop(q, op)
	} else if fn := q.Pop(); fn != nil {
		t.Fatalf("op %d: position %d was cleared but popped a callback", op, h)
	} else {
		m.vals = m.vals[1:]
	}
	if q.Head() != h+1 {
		t.Fatalf("op %d: Head = %d after a pop from %d", op, q.Head(), h)
	}
}

// clearRandom clears a random position from just before head to just past
// tail; only queued ones report true.
func clearRandom(t *testing.T, q Queue, m *model, r *rand.Rand, cleared map[uint64]bool, op int) {
	h := q.Head()
	pos := nearHead(q, m, r)
	queued := pos >= h && pos < h+uint64(len(m.vals))
	if got := q.Clear(pos); got != queued {
		t.Fatalf("op %d: Clear(%d) = %v with head %d, len %d", op, pos, got, h, len(m.vals))
	}
	if queued {
		cleared[pos] = true
	}
}

// checkAt checks At(pos) against the model.
func checkAt(t *testing.T, q Queue, m *model, cleared map[uint64]bool, pos uint64, op int) {
	h := q.Head()
	fn, ok := q.At(pos)
	queued := pos >= h && pos < h+uint64(len(m.vals))
	switch {
	case ok != queued:
		t.Fatalf("op %d: At(%d) reports queued=%v, want %v (head %d, len %d)", op, pos, ok, queued, h, len(m.vals))
	case !queued:
	case cleared[pos] != (fn == nil):
		t.Fatalf("op %d: At(%d) nil=%v, want cleared=%v", op, pos, fn == nil, cleared[pos])
	case fn != nil:
		m.got = -1
		if fn(); m.got != m.vals[pos-h] {
			t.Fatalf("op %d: At(%d) is item %d, want %d", op, pos, m.got, m.vals[pos-h])
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

func nop() {}

// Fill pushes n items and pops them all, then releases: one burst of a
// ready queue, as one loop iteration.
func Fill(q Queue, n int) {
	for range n {
		q.Push(nop)
	}
	for range n {
		q.Pop()
	}
	q.Release()
}

// Batches are the burst sizes the push/pop benchmarks of the ready-queue
// packages use.
var Batches = []int{1, 64, 1000, 100000}
