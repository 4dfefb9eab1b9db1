// Package ringbuffer is a ready queue for the loop: a growable FIFO ring of
// handle references (32-bit ids the loop assigns to its handles).
//
// The ring's length is always a power of two, so the slot of a position is a
// mask away; head and tail run freely and wrap with unsigned arithmetic. The
// ring doubles when full and never shrinks, so after warm-up Push and Pop
// allocate nothing.
package ringbuffer

const minCap = 16

// Ring is a FIFO queue of uint32. The zero value is an empty ring ready to use.
// A Ring is not safe for concurrent use.
type Ring struct {
	buf  []uint32
	head uint // position of the oldest item
	tail uint // position one past the newest item
}

// Len returns the number of queued items. O(1).
func (r *Ring) Len() int { return int(r.tail - r.head) }

// Cap returns the current capacity. O(1).
func (r *Ring) Cap() int { return len(r.buf) }

// Push appends v at the tail. Amortised O(1); it allocates only when the ring
// is full and doubles.
func (r *Ring) Push(v uint32) {
	if r.tail-r.head == uint(len(r.buf)) {
		r.grow()
	}
	r.buf[r.tail&uint(len(r.buf)-1)] = v
	r.tail++
}

// TryPush appends v if the ring has room and reports whether it did. It
// never allocates and is small enough to inline: the fast path of Push.
func (r *Ring) TryPush(v uint32) bool {
	if r.tail-r.head >= uint(len(r.buf)) {
		return false
	}
	r.buf[r.tail&uint(len(r.buf)-1)] = v
	r.tail++
	return true
}

// Pop removes and returns the item at the head. O(1). It panics if the ring
// is empty; callers check Len first (the loop pops exactly Len items).
func (r *Ring) Pop() uint32 {
	if r.head == r.tail {
		panic("ringbuffer: Pop on empty ring")
	}
	v := r.buf[r.head&uint(len(r.buf)-1)]
	r.head++
	return v
}

// grow doubles the buffer, copying the items in FIFO order to its start.
func (r *Ring) grow() {
	n := len(r.buf) * 2
	if n == 0 {
		n = minCap
	}
	buf := make([]uint32, n)
	l := r.Len()
	if l > 0 {
		mask := uint(len(r.buf) - 1)
		h := r.head & mask
		k := copy(buf, r.buf[h:])
		copy(buf[k:l], r.buf[:r.tail&mask])
	}
	r.buf = buf
	r.head, r.tail = 0, uint(l)
}
