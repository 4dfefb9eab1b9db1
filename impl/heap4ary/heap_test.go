package heap4ary_test

import (
	"math"
	"testing"

	"github.com/loopbench/loopbench/impl/heap4ary"
	"github.com/loopbench/loopbench/internal/conform/timerqtest"
)

func newQueue() timerqtest.Queue { return new(heap4ary.Heap) }

func TestConformance(t *testing.T) { timerqtest.Run(t, newQueue) }

func TestSeqWrap(t *testing.T) {
	h := new(heap4ary.Heap)
	heap4ary.SetSeq(h, math.MaxUint32-7)
	timerqtest.SeqWrap(t, h)
}

func FuzzOps(f *testing.F) { timerqtest.Fuzz(f, newQueue) }

func BenchmarkHeap(b *testing.B) { timerqtest.Bench(b, newQueue) }

// TestRemoveMovesNothing: timers cancelled in the order they were
// scheduled, the earliest each time, leave every other entry where it is
// until dead entries outnumber live ones; then the rebuild, and an empty
// heap once the last live timer goes.
func TestRemoveMovesNothing(t *testing.T) {
	const n = 1000
	h := new(heap4ary.Heap)
	for i := range n {
		h.Push(int64(i), uint32(i))
	}
	slot := heap4ary.Slot(h, n-2)
	for i := range n / 2 {
		if !h.Remove(uint32(i)) {
			t.Fatalf("Remove(%d) = false", i)
		}
		if err := h.Check(); err != nil {
			t.Fatalf("after Remove(%d): %v", i, err)
		}
		if got := heap4ary.Slot(h, n-2); got != slot {
			t.Fatalf("Remove(%d) of the earliest moved an entry: id %d from slot %d to %d", i, n-2, slot, got)
		}
	}
	h.Remove(n / 2) // dead entries now outnumber live ones: rebuilt without them
	if err := h.Check(); err != nil {
		t.Fatal(err)
	}
	if when, id, ok := h.Peek(); !ok || when != n/2+1 || id != n/2+1 || h.Len() != n/2-1 {
		t.Fatalf("after the rebuild: Peek = (%d, %d, %v), Len %d; want (%d, %d, true), %d", when, id, ok, h.Len(), n/2+1, n/2+1, n/2-1)
	}
	for i := n/2 + 1; i < n; i++ {
		h.Remove(uint32(i))
	}
	if err := h.Check(); err != nil {
		t.Fatal(err)
	}
	if _, _, ok := h.Peek(); ok || h.Len() != 0 {
		t.Fatalf("every timer removed: Peek ok %v, Len %d", ok, h.Len())
	}
}
