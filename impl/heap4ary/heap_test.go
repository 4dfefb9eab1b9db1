package heap4ary_test

import (
	"math"
	"testing"

	"github.com/loopbench/loopbench/impl/heap4ary"
	"github.com/loopbench/loopbench/internal/timerqtest"
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
