package bench

import "github.com/loopbench/loopbench/impl/ringbuffer"

// RingBurst is the bare cost of the ringbuffer ready queue under
// CallSoonBatch: bursts of batch pushes and pops, called the way the loop
// calls them (TryPush, Push when it declines, Pop) on the concrete type.
// The other queues' bursts are generated from this file by internal/gen.
func RingBurst(t Timer, n, batch int) {
	var q ringbuffer.Ring
	t.ResetTimer()
	for i := 0; i < n; i += batch {
		for j := range uint32(min(batch, n-i)) {
			if !q.TryPush(j) {
				q.Push(j)
			}
		}
		for q.Len() > 0 {
			q.Pop()
		}
	}
	t.StopTimer()
}
