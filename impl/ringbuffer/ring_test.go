package ringbuffer_test

import (
	"testing"

	"github.com/loopbench/loopbench/impl/ringbuffer"
	"github.com/loopbench/loopbench/internal/conform/queuetest"
)

func newQueue() queuetest.Queue { return new(ringbuffer.Ring) }

func TestConformance(t *testing.T) { queuetest.Run(t, newQueue) }

func TestCapacityPowerOfTwo(t *testing.T) {
	var r ringbuffer.Ring
	for i := range 1000 {
		r.Push(func() {})
		if c := r.Cap(); c&(c-1) != 0 || c < r.Len() {
			t.Fatalf("after %d pushes Cap = %d (Len %d)", i+1, c, r.Len())
		}
	}
}
