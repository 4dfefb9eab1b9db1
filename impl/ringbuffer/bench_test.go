package ringbuffer_test

import (
	"fmt"
	"testing"

	"github.com/loopbench/loopbench/impl/ringbuffer"
	"github.com/loopbench/loopbench/internal/conform/queuetest"
)

func nop() {}

// BenchmarkPushPop is the cost per item of pushing a burst of n callbacks
// and popping them, the way the loop does (TryPush, Push when it declines,
// Pop, one Release per burst), on the concrete type: through an interface
// each queue would pay a different extra cost. Its twin in the other
// ready-queue package is generated from this file by internal/gen.
func BenchmarkPushPop(b *testing.B) {
	for _, n := range queuetest.Batches {
		b.Run(fmt.Sprintf("batch=%d", n), func(b *testing.B) {
			var q ringbuffer.Ring
			b.ReportAllocs()
			for i := 0; i < b.N; i += n {
				for range n {
					if _, ok := q.TryPush(nop); !ok {
						q.Push(nop)
					}
				}
				for range n {
					q.Pop()
				}
				q.Release()
			}
		})
	}
}
