// Package timerqtest is the conformance suite every timer queue runs. A
// timer queue orders (when, id) pairs by deadline, equal deadlines in push
// order, pops them one by one or all those due before a deadline at once,
// removes any queued id, rebuilds without the timers a predicate rejects,
// and checks its own invariants. The suite compares each
// queue with a simple reference model and runs the queue's invariant checker
// after every mutation. It also holds the shared fuzz target and benchmarks.
package timerqtest

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// Queue is the timer-queue contract.
type Queue interface {
	Push(when int64, id uint32)
	Peek() (when int64, id uint32, ok bool)
	Pop() (when int64, id uint32, ok bool)
	PopBefore(end int64, ids []uint32) []uint32
	Remove(id uint32) bool
	Retain(keep func(id uint32) bool) int
	Contains(id uint32) bool
	Len() int
	Check() error
}

// Run runs the conformance suite on queues made by newQueue.
func Run(t *testing.T, newQueue func() Queue) {
	t.Run("Empty", func(t *testing.T) { testEmpty(t, newQueue()) })
	t.Run("Order", func(t *testing.T) { testOrder(t, newQueue()) })
	t.Run("EqualDeadlinesFIFO", func(t *testing.T) { testFIFO(t, newQueue()) })
	t.Run("Remove", func(t *testing.T) { testRemove(t, newQueue()) })
	t.Run("Retain", func(t *testing.T) { testRetain(t, newQueue()) })
	t.Run("Random", func(t *testing.T) {
		Replay(t, newQueue(), randomOps(3, 200000))
	})
	t.Run("RandomWide", func(t *testing.T) {
		ReplayWide(t, newQueue(), randomOps(5, 200000))
	})
	t.Run("SteadyStateAllocs", func(t *testing.T) { testAllocs(t, newQueue()) })
}

func randomOps(seed uint64, n int) []byte {
	r := rand.New(rand.NewPCG(seed, seed+1))
	ops := make([]byte, n)
	for i := range ops {
		ops[i] = byte(r.Uint32())
	}
	return ops
}

func check(t *testing.T, q Queue, what string) {
	t.Helper()
	if err := q.Check(); err != nil {
		t.Fatalf("after %s: %v", what, err)
	}
}

func testEmpty(t *testing.T, q Queue) {
	if _, _, ok := q.Peek(); ok || q.Len() != 0 {
		t.Fatal("new queue is not empty")
	}
	if _, _, ok := q.Pop(); ok {
		t.Fatal("Pop on an empty queue reported ok")
	}
	if q.Remove(3) || q.Contains(3) {
		t.Fatal("Remove/Contains of an id never pushed reported true")
	}
	check(t, q, "nothing")
}

func testOrder(t *testing.T, q Queue) {
	whens := []int64{50, -3, 7, 7, 1000, 0, 42, math.MaxInt64, math.MinInt64, 8}
	for i, w := range whens {
		q.Push(w, uint32(i))
		check(t, q, "push")
	}
	prev := int64(math.MinInt64)
	for q.Len() > 0 {
		pw, pid, _ := q.Peek()
		w, id, ok := q.Pop()
		check(t, q, "pop")
		if !ok || w != pw || id != pid || w != whens[id] || w < prev {
			t.Fatalf("pop = (%d, %d, %v), peek said (%d, %d); previous deadline %d", w, id, ok, pw, pid, prev)
		}
		prev = w
	}
}

func testFIFO(t *testing.T, q Queue) { pushPopFIFO(t, q, 300, 3, "") }

// pushPopFIFO pushes ids 0..n-1 over deadlines 0..k-1 in turn and checks
// that they pop by deadline, and in push order within one; where says
// where in the test this happens, for the messages.
func pushPopFIFO(t *testing.T, q Queue, n, k int, where string) {
	for i := range n {
		q.Push(int64(i%k), uint32(i))
		check(t, q, "push"+where)
	}
	for d := range k {
		for i := d; i < n; i += k {
			if _, id, _ := q.Pop(); id != uint32(i) {
				t.Fatalf("deadline %d%s: popped id %d, want %d (push order)", d, where, id, i)
			}
			check(t, q, "pop"+where)
		}
	}
}

func testRemove(t *testing.T, q Queue) {
	for i := range 100 {
		q.Push(int64((i*37)%100), uint32(i))
	}
	for i := 0; i < 100; i += 2 {
		if !q.Remove(uint32(i)) {
			t.Fatalf("Remove(%d) = false for a queued timer", i)
		}
		check(t, q, fmt.Sprintf("Remove(%d)", i))
		if q.Remove(uint32(i)) || q.Contains(uint32(i)) {
			t.Fatalf("id %d still queued after Remove", i)
		}
	}
	if q.Len() != 50 {
		t.Fatalf("Len = %d after removing 50 of 100", q.Len())
	}
	for q.Len() > 0 {
		if _, id, _ := q.Pop(); id%2 == 0 {
			t.Fatalf("popped removed id %d", id)
		}
	}
	// An id can be pushed again once removed.
	q.Push(5, 0)
	if w, id, ok := q.Pop(); !ok || w != 5 || id != 0 {
		t.Fatalf("re-pushed id: pop = (%d, %d, %v)", w, id, ok)
	}
}

func testRetain(t *testing.T, q Queue) {
	if n := q.Retain(func(uint32) bool { return false }); n != 0 {
		t.Fatalf("Retain on an empty queue dropped %d", n)
	}
	for i := range 1000 {
		q.Push(int64(i%17), uint32(i))
	}
	dropped := q.Retain(func(id uint32) bool { return id%3 != 0 })
	check(t, q, "Retain")
	if dropped != 334 || q.Len() != 666 {
		t.Fatalf("Retain dropped %d, left %d; want 334 and 666", dropped, q.Len())
	}
	last := entry{when: -1}
	for q.Len() > 0 {
		w, id, _ := q.Pop()
		if id%3 == 0 {
			t.Fatalf("popped dropped id %d", id)
		}
		// Equal deadlines still pop in push order after the rebuild.
		if w < last.when || (w == last.when && id < last.id) {
			t.Fatalf("after Retain: (%d, %d) popped after (%d, %d)", w, id, last.when, last.id)
		}
		last = entry{when: w, id: id}
	}
}

// SeqWrap checks the FIFO tie-break across the wrap of a queue's sequence
// counter: q must be empty, with its counter a few pushes short of wrapping.
func SeqWrap(t *testing.T, q Queue) {
	pushPopFIFO(t, q, 40, 2, " across the sequence wrap")
}

func testAllocs(t *testing.T, q Queue) {
	const n = 1000
	for i := range n {
		q.Push(int64(i), uint32(i))
	}
	next := int64(n)
	a := testing.AllocsPerRun(1000, func() {
		_, id, _ := q.Pop()
		q.Push(next, id)
		next++
		q.Push(next, n)
		q.Remove(n)
	})
	if a != 0 {
		t.Fatalf("schedule/fire/cancel allocates %.1f times in steady state, want 0", a)
	}
}

type entry struct {
	when int64
	seq  int
	id   uint32
}

// model is the reference timer queue: a slice scanned linearly.
type model struct {
	items []entry
	seq   int
}

func (m *model) push(when int64, id uint32) {
	m.items = append(m.items, entry{when, m.seq, id})
	m.seq++
}

func (m *model) min() int {
	best := 0
	for i, e := range m.items {
		b := m.items[best]
		if e.when < b.when || (e.when == b.when && e.seq < b.seq) {
			best = i
		}
	}
	return best
}

func (m *model) remove(i int) entry {
	e := m.items[i]
	m.items = append(m.items[:i], m.items[i+1:]...)
	return e
}

func (m *model) find(id uint32) int {
	for i, e := range m.items {
		if e.id == id {
			return i
		}
	}
	return -1
}

// Replay interprets ops as a sequence of pushes, pops, pops of the timers
// due before a deadline, removes and rebuilds,
// applies it to q and to the reference model, and fails on the first
// difference or broken invariant. Ids are drawn from a small range so removes
// often hit; deadlines from a small range so ties are frequent.
func Replay(t *testing.T, q Queue, ops []byte) {
	replay(t, q, ops, func(op, arg byte) int64 { return int64(arg%16) - 4 })
}

// wideScales are the deadline scales ReplayWide draws from: a nanosecond,
// then 1 ms and each power of 64 ms up to and past 64^6 ms, where a timing
// wheel of 1 ms ticks and six 64-slot levels overflows, and the extremes.
var wideScales = []int64{1, 1e6, 64e6, 4096e6, 262144e6, 16777216e6, 1073741824e6, 68719476736e6, 1 << 62}

// ReplayWide is Replay with deadlines spread from nanoseconds to beyond
// two years, negative ones included, still with frequent ties: it crosses
// every level boundary of a timing wheel, its cascades and its overflow.
func ReplayWide(t *testing.T, q Queue, ops []byte) {
	replay(t, q, ops, func(op, arg byte) int64 {
		scale := wideScales[int(op/8)%len(wideScales)]
		k := int64(arg%16) - 4
		if scale == 1<<62 {
			return k * (scale / 8) // up to +-2^62, without overflowing
		}
		return k * scale
	})
}

func replay(t *testing.T, q Queue, ops []byte, deadline func(op, arg byte) int64) {
	var m model
	for i := 0; i+1 < len(ops); i += 2 {
		op, arg := ops[i], ops[i+1]
		id := uint32(arg % 64)
		switch op % 8 {
		case 0, 1, 2:
			if m.find(id) >= 0 {
				continue
			}
			when := deadline(op, arg)
			q.Push(when, id)
			m.push(when, id)
		case 4:
			end := deadline(op, arg)
			got := q.PopBefore(end, nil)
			var want []uint32
			for len(m.items) > 0 && m.items[m.min()].when < end {
				want = append(want, m.remove(m.min()).id)
			}
			if !slices.Equal(got, want) {
				t.Fatalf("op %d: PopBefore(%d) = %v, model %v", i/2, end, got, want)
			}
		case 3:
			w, qid, ok := q.Pop()
			if len(m.items) == 0 {
				if ok {
					t.Fatalf("op %d: Pop on empty queue returned (%d, %d)", i/2, w, qid)
				}
				continue
			}
			e := m.remove(m.min())
			if !ok || w != e.when || qid != e.id {
				t.Fatalf("op %d: Pop = (%d, %d, %v), model (%d, %d)", i/2, w, qid, ok, e.when, e.id)
			}
		case 5, 6:
			k := m.find(id)
			if got := q.Remove(id); got != (k >= 0) {
				t.Fatalf("op %d: Remove(%d) = %v, model %v", i/2, id, got, k >= 0)
			}
			if k >= 0 {
				m.remove(k)
			}
		case 7:
			mod := uint32(arg%5 + 2)
			q.Retain(func(id uint32) bool { return id%mod != 0 })
			kept := m.items[:0]
			for _, e := range m.items {
				if e.id%mod != 0 {
					kept = append(kept, e)
				}
			}
			m.items = kept
		}
		if err := q.Check(); err != nil {
			t.Fatalf("op %d (%d): %v", i/2, op%8, err)
		}
		if q.Len() != len(m.items) {
			t.Fatalf("op %d: Len = %d, model %d", i/2, q.Len(), len(m.items))
		}
	}
}

// Fuzz is the shared fuzz target: random operation sequences replayed
// against the reference model, with narrow and with wide deadlines.
func Fuzz(f *testing.F, newQueue func() Queue) {
	f.Add([]byte{0, 1, 0, 2, 3, 0, 5, 1, 7, 3, 3, 0})
	f.Add([]byte{0, 17, 1, 33, 2, 49, 0, 1, 7, 0, 3, 3, 4, 4})
	f.Add([]byte{64, 17, 9, 33, 58, 49, 8, 1, 7, 0, 3, 3, 4, 4})
	f.Fuzz(func(t *testing.T, ops []byte) {
		Replay(t, newQueue(), ops)
		ReplayWide(t, newQueue(), ops)
	})
}

// Pending are the queue sizes the benchmarks hold steady.
var Pending = []int{1_000, 10_000, 100_000, 1_000_000}

// Span is the range of deadlines, in the loop clock's nanoseconds: timers
// spread over 10 s, as timeouts in a server are.
const Span = int64(10e9)

// offsets are pseudo-random deadline offsets within Span, precomputed so the
// benchmarks do not time the random generator.
var offsets = func() []int64 {
	r := rand.New(rand.NewPCG(5, 6))
	o := make([]int64, 1<<14)
	for i := range o {
		o[i] = r.Int64N(Span)
	}
	return o
}()

// Offset returns the i-th precomputed deadline offset in [0, Span).
func Offset(i int) int64 { return offsets[i&(len(offsets)-1)] }

// Fill queues ids 0..p-1 with deadlines spread over Span.
func Fill(q Queue, p int) {
	for i := range p {
		q.Push(Offset(i*7+1), uint32(i))
	}
}

// dueBurst is how many due timers op=due-fire schedules before firing
// them, as the loop's Timers workload does per iteration.
const dueBurst = 100

// Bench measures, at each size in Pending: schedule one timer then fire the
// earliest (the queue stays at p, the clock follows the fired deadline);
// schedule timers due before every pending one, dueBurst at a time, then
// fire them (what the loop's heap does for CallLater(0) callbacks); and
// schedule one timer then cancel it.
func Bench(b *testing.B, newQueue func() Queue) {
	for _, p := range Pending {
		q := newQueue()
		Fill(q, p)
		b.Run(fmt.Sprintf("op=schedule-fire/p=%d", p), func(b *testing.B) {
			b.ReportAllocs()
			var now int64
			i := 0
			for b.Loop() {
				when, id, _ := q.Pop()
				now = max(now, when)
				q.Push(now+Offset(i), id)
				i++
			}
		})
		b.Run(fmt.Sprintf("op=due-fire/p=%d", p), func(b *testing.B) {
			b.ReportAllocs()
			when := int64(math.MinInt64)
			k := 0
			for b.Loop() {
				when++
				q.Push(when, uint32(p+k))
				if k++; k == dueBurst {
					for ; k > 0; k-- {
						q.Pop()
					}
				}
			}
			for ; k > 0; k-- {
				q.Pop()
			}
		})
		b.Run(fmt.Sprintf("op=schedule-cancel/p=%d", p), func(b *testing.B) {
			b.ReportAllocs()
			id := uint32(p)
			i := 0
			for b.Loop() {
				q.Push(Offset(i), id)
				q.Remove(id)
				i++
			}
		})
	}
}
