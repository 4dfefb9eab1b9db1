// Package heap4ary is a timer queue for the loop: a 4-ary min-heap,
// the layout of libev's and the Go runtime's timers.
//
// Each slot holds its timer's deadline inline (when), a sequence number that
// makes equal deadlines pop in scheduling order, and the timer's id; sifting
// compares keys without chasing a pointer. The heap keeps every id's slot
// index, so Remove is O(log n), and sifts with a hole (one write per level,
// not a swap). The root sits at slot arity-1, so the arity children of a
// node share one 64-byte cache line once the slot array is line-aligned.
//
// Costs: Push O(log n) (O(1) expected for random deadlines), Pop and Remove
// O(log n), Peek and Len O(1), Retain O(n). After the slot array and the id
// index have grown to the working size nothing allocates.
package heap4ary

import (
	"fmt"
	"math"
	"math/bits"
	"slices"
)

// arity is the number of children of a node.
const arity = 4

// base is the slot of the root; slots below it are padding.
const base = arity - 1

// lineEntries is the number of entries in a 64-byte cache line.
const lineEntries = 64 / 16

// deepSlot is where holeToLeaf starts touching grandchildren ahead: the
// slots above it (64 KiB) stay in the first-level caches.
const deepSlot = 4096

// entry is one timer: 16 bytes, key inline.
type entry struct {
	when int64  // deadline, in the loop's clock
	seq  uint32 // scheduling order among equal deadlines
	id   uint32 // the loop's handle reference
}

func less(a, b entry) bool {
	return a.when < b.when || (a.when == b.when && a.seq < b.seq)
}

// lessBit is less as 1 or 0, without branches: the borrow out of the
// 128-bit subtraction (when, seq) - (when, seq), with when's sign bit
// flipped so that unsigned order is signed order. Heap descents compare
// random keys, where a branch mispredicts half the time.
func lessBit(a, b entry) int {
	const sign = 1 << 63
	_, borrow := bits.Sub64(uint64(a.seq), uint64(b.seq), 0)
	_, borrow = bits.Sub64(uint64(a.when)^sign, uint64(b.when)^sign, borrow)
	return int(borrow)
}

// parent returns the parent slot of slot p (p > base).
func parent(p int) int { return p/arity + arity - 2 }

// firstChild returns the slot of the first child of slot p.
func firstChild(p int) int { return arity * (p - arity + 2) }

// Heap is a min-heap of timers keyed by (when, scheduling order). The zero
// value is an empty heap ready to use. Ids must be distinct among queued
// timers; they index a table, so keep them dense (the loop's handle slots
// are). A Heap is not safe for concurrent use.
type Heap struct {
	items []entry // items[base:] is the heap
	pos   []int32 // pos[id] = slot of id, 0 when id is not queued
	seq   uint32  // next sequence number
	touch int64   // sink for the loads that bring grandchildren into cache
}

// Len returns the number of queued timers. O(1).
func (h *Heap) Len() int {
	if len(h.items) == 0 {
		return 0
	}
	return len(h.items) - base
}

// Contains reports whether id is queued. O(1).
func (h *Heap) Contains(id uint32) bool {
	return int(id) < len(h.pos) && h.pos[id] != 0
}

// Push queues timer id with deadline when. O(log n). It panics if id is
// already queued.
func (h *Heap) Push(when int64, id uint32) {
	if h.Contains(id) {
		panic(fmt.Sprintf("heap4ary: Push of id %d, already queued", id))
	}
	if len(h.items) == 0 {
		h.items = append(h.items, make([]entry, base)...)
	}
	for int(id) >= len(h.pos) {
		h.pos = append(h.pos, 0)
	}
	if h.seq == math.MaxUint32 {
		h.renumber()
	}
	e := entry{when: when, seq: h.seq, id: id}
	h.seq++
	h.items = append(h.items, e)
	h.up(len(h.items)-1, e)
}

// Peek returns the earliest timer without removing it; ok is false when
// the heap is empty. O(1).
func (h *Heap) Peek() (when int64, id uint32, ok bool) {
	if h.Len() == 0 {
		return 0, 0, false
	}
	e := h.items[base]
	return e.when, e.id, true
}

// Pop removes and returns the earliest timer; ok is false when the heap is
// empty. O(log n). The hole left at the root goes down to a leaf along the
// smaller children and the last entry is sifted up from there (Floyd's
// bottom-up variant): the last entry nearly always belongs near the
// bottom, so this saves a comparison per level.
func (h *Heap) Pop() (when int64, id uint32, ok bool) {
	if h.Len() == 0 {
		return 0, 0, false
	}
	top := h.items[base]
	h.pos[top.id] = 0
	n := len(h.items) - 1
	last := h.items[n]
	h.items = h.items[:n]
	if n > base {
		h.up(h.holeToLeaf(base), last)
	}
	return top.when, top.id, true
}

// holeToLeaf moves the hole at slot p down to a leaf, filling it with the
// smaller child at each level, and returns the leaf slot.
func (h *Heap) holeToLeaf(p int) int {
	items := h.items
	n := len(items)
	var touch int64
	for {
		c := firstChild(p)
		if c >= n {
			h.touch = touch
			return p
		}
		// Deep in a large heap, load the grandchildren's cache lines
		// now: which of them the descent needs is known only after the
		// comparisons below, and these loads then overlap.
		if c >= deepSlot {
			for g := firstChild(c); g < min(firstChild(c+arity), n); g += lineEntries {
				touch ^= items[g].when
			}
		}
		m := c + minChild(items[c:min(c+arity, n)])
		h.move(p, m)
		p = m
	}
}

// minChild returns the index of the smallest entry in kids (1..arity
// long), selecting without branches.
func minChild(kids []entry) int {
	m := 0
	for j := 1; j < len(kids); j++ {
		m ^= (m ^ j) & -lessBit(kids[j], kids[m])
	}
	return m
}

// Remove removes timer id and reports whether it was queued. O(log n).
func (h *Heap) Remove(id uint32) bool {
	if !h.Contains(id) {
		return false
	}
	h.removeAt(int(h.pos[id]))
	return true
}

// Retain keeps the timers for which keep returns true, drops the others and
// rebuilds the heap bottom-up. It returns how many it dropped. O(n). keep is
// called once per timer and must not use the heap.
func (h *Heap) Retain(keep func(id uint32) bool) (dropped int) {
	if h.Len() == 0 {
		return 0
	}
	kept := h.items[:base]
	for _, e := range h.items[base:] {
		if keep(e.id) {
			kept = append(kept, e)
		} else {
			h.pos[e.id] = 0
			dropped++
		}
	}
	clear(h.items[len(kept):])
	h.items = kept
	h.heapify()
	return dropped
}

// Check verifies the heap invariants: every node orders no later than its
// children, and the id index points at every queued timer and at nothing
// else. It returns the first violation found. O(n + ids).
func (h *Heap) Check() error {
	n := len(h.items)
	for p := base + 1; p < n; p++ {
		if less(h.items[p], h.items[parent(p)]) {
			return fmt.Errorf("heap order: slot %d %+v sorts before its parent slot %d %+v",
				p, h.items[p], parent(p), h.items[parent(p)])
		}
	}
	live := 0
	for id, p := range h.pos {
		if p == 0 {
			continue
		}
		live++
		if int(p) < base || int(p) >= n || h.items[p].id != uint32(id) {
			return fmt.Errorf("index: id %d points at slot %d, which does not hold it", id, p)
		}
	}
	if live != h.Len() {
		return fmt.Errorf("index: %d ids indexed, %d timers queued", live, h.Len())
	}
	return nil
}

// removeAt removes the entry at slot p and refills the hole with the last
// entry, sifted whichever way it belongs.
func (h *Heap) removeAt(p int) {
	n := len(h.items) - 1
	h.pos[h.items[p].id] = 0
	last := h.items[n]
	h.items = h.items[:n]
	if p == n {
		return
	}
	if p > base && less(last, h.items[parent(p)]) {
		h.up(p, last)
	} else {
		h.down(p, last)
	}
}

// up moves the hole at slot p towards the root until e fits, then stores e.
func (h *Heap) up(p int, e entry) {
	for p > base {
		q := parent(p)
		if !less(e, h.items[q]) {
			break
		}
		h.move(p, q)
		p = q
	}
	h.store(p, e)
}

// down moves the hole at slot p towards the leaves until e fits, then
// stores e.
func (h *Heap) down(p int, e entry) {
	n := len(h.items)
	for {
		c := firstChild(p)
		if c >= n {
			break
		}
		m := c + minChild(h.items[c:min(c+arity, n)])
		if !less(h.items[m], e) {
			break
		}
		h.move(p, m)
		p = m
	}
	h.store(p, e)
}

// move copies the entry at slot from into slot to.
func (h *Heap) move(to, from int) {
	e := h.items[from]
	h.items[to] = e
	h.pos[e.id] = int32(to)
}

func (h *Heap) store(p int, e entry) {
	h.items[p] = e
	h.pos[e.id] = int32(p)
}

// heapify restores heap order over all slots, bottom-up. O(n).
func (h *Heap) heapify() {
	n := len(h.items)
	for p := n - 1; p >= base; p-- {
		h.pos[h.items[p].id] = int32(p)
	}
	if n <= base+1 {
		return
	}
	for p := parent(n - 1); p >= base; p-- {
		h.down(p, h.items[p])
	}
}

// renumber reassigns sequence numbers 0..n-1 in (when, seq) order, keeping
// the FIFO tie-break exact when the 32-bit counter would wrap. A sorted
// array is a valid heap. O(n log n), once per 2^32 pushes.
func (h *Heap) renumber() {
	live := h.items[base:]
	slices.SortFunc(live, func(a, b entry) int {
		switch {
		case less(a, b):
			return -1
		case less(b, a):
			return 1
		}
		return 0
	})
	for i := range live {
		live[i].seq = uint32(i)
		h.pos[live[i].id] = int32(base + i)
	}
	h.seq = uint32(len(live))
}
