package bench

import "github.com/loopbench/loopbench/impl/ringbuffer"

// RingBurst is the bare cost of the ringbuffer ready queue under
// CallSoonBatch: bursts of batch pushes and pops of a prebuilt callback,
// called the way the loop calls them (TryPush, Push when it declines, Pop,
// one Release per burst) on the concrete type. The other queues' bursts are
// generated from this file by internal/gen.
func RingBurst(t Timer, n, batch int) {
	var q ringbuffer.Ring
	t.ResetTimer()
	for i := 0; i < n; i += batch {
		for range min(batch, n-i) {
			if _, ok := q.TryPush(nop); !ok {
				q.Push(nop)
			}
		}
		for q.Len() > 0 {
			q.Pop()
		}
		q.Release()
	}
	t.StopTimer()
}
