// Package ringbuffer is a ready queue for the loop: a growable FIFO ring of
// callbacks.
//
// The ring's length is always a power of two, so the slot of a position is a
// mask away. Positions are absolute (the n-th item ever pushed has position
// n-1), run freely as uint64 and never repeat, so a position names one item
// for the queue's whole life: the loop uses it as the handle of a CallSoon
// callback. The ring doubles when full and never shrinks, so after warm-up
// Push and Pop allocate nothing.
//
// Pop leaves the popped callback in its slot; Release, which the loop calls
// once per iteration, clears every slot popped since the last Release in one
// bulk clear, so the per-item path stores nothing but the head.
package ringbuffer

const minCap = 16

// Ring is a FIFO queue of callbacks. The zero value is an empty ring ready
// to use. A Ring is not safe for concurrent use.
type Ring struct {
	buf  []func()
	head uint64 // position of the oldest item
	tail uint64 // position one past the newest item
	rel  uint64 // slots of positions before rel have been cleared
}

// Len returns the number of queued items. O(1).
func (r *Ring) Len() int { return int(r.tail - r.head) }

// Cap returns the current capacity. O(1).
func (r *Ring) Cap() int { return len(r.buf) }

// Head returns the position of the oldest item: the number of items popped
// so far. O(1).
func (r *Ring) Head() uint64 { return r.head }

// Push appends fn at the tail and returns its position. Amortised O(1); it
// allocates only when the ring is full and doubles.
func (r *Ring) Push(fn func()) uint64 {
	if r.tail-r.head == uint64(len(r.buf)) {
		r.grow()
	}
	p := r.tail
	r.buf[p&uint64(len(r.buf)-1)] = fn
	r.tail = p + 1
	return p
}

// TryPush appends fn if the ring has room and returns its position and
// true; otherwise it returns false. It never allocates and is small enough
// to inline: the fast path of Push.
func (r *Ring) TryPush(fn func()) (uint64, bool) {
	p := r.tail
	if p-r.head >= uint64(len(r.buf)) {
		return 0, false
	}
	r.buf[p&uint64(len(r.buf)-1)] = fn
	r.tail = p + 1
	return p, true
}

// Pop removes and returns the item at the head. O(1). The slot keeps the
// callback until the next Release. It panics if the ring is empty; callers
// check Len first (the loop pops exactly Len items).
func (r *Ring) Pop() func() {
	h := r.head
	if h == r.tail {
		panic("ringbuffer: Pop on empty ring")
	}
	fn := r.buf[h&uint64(len(r.buf)-1)]
	r.head = h + 1
	return fn
}

// At returns the item at position pos and whether pos is still queued.
// O(1).
func (r *Ring) At(pos uint64) (func(), bool) {
	if pos < r.head || pos >= r.tail {
		return nil, false
	}
	return r.buf[pos&uint64(len(r.buf)-1)], true
}

// Clear replaces the item at position pos by nil if pos is still queued
// and reports whether it was. Pop returns the nil in its turn. O(1).
func (r *Ring) Clear(pos uint64) bool {
	if pos < r.head || pos >= r.tail {
		return false
	}
	r.buf[pos&uint64(len(r.buf)-1)] = nil
	return true
}

// Release clears the slots of the items popped since the last Release, so
// the ring holds no reference to a callback that has left it. O(items
// popped since then): a few by plain stores, more by one or two bulk
// clears. (clear of pointers calls into the runtime, a bulk write barrier
// then memclr, which costs more than the stores of the one callback a
// loop iteration often pops.)
func (r *Ring) Release() {
	h, from := r.head, r.rel
	r.rel = h
	if from >= h {
		return
	}
	n := uint64(len(r.buf))
	if r.tail > n {
		from = max(from, r.tail-n) // slots of positions before tail-n were reused by later pushes
	}
	mask := n - 1
	if h-from <= 16 {
		for p := from; p < h; p++ {
			r.buf[p&mask] = nil
		}
		return
	}
	i, j := from&mask, h&mask
	if i < j {
		clear(r.buf[i:j])
	} else {
		clear(r.buf[i:])
		clear(r.buf[:j])
	}
}

// grow doubles the buffer, moving each queued item to the slot its
// position maps to. Popped slots are not copied, so they count as released.
func (r *Ring) grow() {
	n := max(2*len(r.buf), minCap)
	buf := make([]func(), n)
	for p := r.head; p < r.tail; p++ {
		buf[p&uint64(n-1)] = r.buf[p&uint64(len(r.buf)-1)]
	}
	r.buf = buf
	r.rel = r.head
}
