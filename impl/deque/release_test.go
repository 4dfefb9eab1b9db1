package deque

import "testing"

// TestReleaseClearsPopped: after Release no slot of a linked block outside
// the queued items holds a callback, and blocks in the free cache are
// empty.
func TestReleaseClearsPopped(t *testing.T) {
	var d Deque
	fn := func() {}
	for round := range 300 {
		for range round%150 + 1 {
			d.Push(fn)
		}
		for range round % 140 {
			if d.Len() > 0 {
				d.Pop()
			}
		}
		d.Release()
		k := 0 // index of the block's first slot from the left block's start
		for b := d.left; b != nil; b = b.next {
			for i, f := range b.data {
				queued := k+i >= d.li && k+i < d.li+d.Len()
				if queued != (f != nil) {
					t.Fatalf("round %d: slot %d of a linked block: queued=%v, holds a callback=%v", round, k+i, queued, f != nil)
				}
			}
			k += BlockLen
		}
		for _, b := range d.free {
			for _, f := range b.data {
				if f != nil || b.next != nil {
					t.Fatalf("round %d: a cached free block is not empty", round)
				}
			}
		}
	}
}
