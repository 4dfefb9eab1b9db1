package deque_test

import (
	"testing"
	"unsafe"

	"github.com/loopbench/loopbench/impl/deque"
	"github.com/loopbench/loopbench/internal/conform/queuetest"
)

func newQueue() queuetest.Queue { return new(deque.Deque) }

func TestConformance(t *testing.T) { queuetest.Run(t, newQueue) }

// TestBurstReusesBlocks: after one burst of 10 000 items, a second burst of
// the same size allocates nothing, because the free-block cache (bounded by
// bytes, not by a handful of blocks) holds the blocks the first one used.
func TestBurstReusesBlocks(t *testing.T) {
	var d deque.Deque
	const burst = 10000
	queuetest.Fill(&d, burst)
	if got, want := d.FreeBlocks(), burst/deque.BlockLen; got < want-1 {
		t.Fatalf("free-block cache holds %d blocks after a %d-item burst, want >= %d", got, burst, want-1)
	}
	if a := testing.AllocsPerRun(20, func() { queuetest.Fill(&d, burst) }); a != 0 {
		t.Fatalf("repeat burst of %d allocates %.1f times, want 0", burst, a)
	}
}

// TestFreeCacheBounded: a huge burst leaves at most MaxFreeBytes in the cache.
func TestFreeCacheBounded(t *testing.T) {
	var d deque.Deque
	queuetest.Fill(&d, 1<<20)
	const ptr = int(unsafe.Sizeof(uintptr(0))) // a func value and the next link: a word each
	const blockBytes = deque.BlockLen*ptr + ptr
	if got := d.FreeBlocks() * blockBytes; got > deque.MaxFreeBytes {
		t.Fatalf("free-block cache holds %d bytes, bound is %d", got, deque.MaxFreeBytes)
	}
}
