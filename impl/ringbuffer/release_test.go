package ringbuffer

import "testing"

// TestReleaseClearsPopped: after Release no slot outside [head, tail)
// holds a callback, however the popped range wraps, and the queued ones
// are untouched.
func TestReleaseClearsPopped(t *testing.T) {
	var r Ring
	fn := func() {}
	for round := range 100 {
		for range round%23 + 1 {
			r.Push(fn)
		}
		for range round % 19 {
			if r.Len() > 0 {
				r.Pop()
			}
		}
		r.Release()
		mask := uint64(len(r.buf) - 1)
		for p := r.tail; p < r.head+uint64(len(r.buf)); p++ {
			if r.buf[p&mask] != nil {
				t.Fatalf("round %d: slot of free position %d holds a callback", round, p)
			}
		}
		for p := r.head; p < r.tail; p++ {
			if r.buf[p&mask] == nil {
				t.Fatalf("round %d: queued position %d lost its callback", round, p)
			}
		}
	}
}
