package ringbuffer_test

import (
	"fmt"
	"testing"

	"github.com/loopbench/loopbench/impl/ringbuffer"
	"github.com/loopbench/loopbench/internal/queuetest"
)

// BenchmarkPushPop is the cost per item of pushing a burst of n items and
// popping them, the way the loop does (TryPush, Push when it declines,
// Pop), on the concrete type: through an interface each queue would pay a
// different extra cost. Its twin in the other ready-queue package is
// generated from this file by internal/gen.
func BenchmarkPushPop(b *testing.B) {
	for _, n := range queuetest.Batches {
		b.Run(fmt.Sprintf("batch=%d", n), func(b *testing.B) {
			var q ringbuffer.Ring
			b.ReportAllocs()
			for i := 0; i < b.N; i += n {
				for j := range uint32(n) {
					if !q.TryPush(j) {
						q.Push(j)
					}
				}
				for range n {
					q.Pop()
				}
			}
		})
	}
}
