// Package heap4ary is a timer queue for the loop: a 4-ary min-heap,
// the layout of libev's and the Go runtime's timers.
//
// Timers pop in deadline order, equal deadlines in push order. The heap
// keeps every id's slot, so Remove finds its entry in O(1). Remove does
// not sift: it marks the entry dead in place (the last entry leaves at
// once). A dead entry leaves when Peek or Pop finds it at the top, or when
// dead entries outnumber live ones and the heap is rebuilt without them.
//
// Costs: Push O(log n) (O(1) expected for random deadlines), Pop O(log n)
// amortized, Remove O(1) amortized, Peek O(1) amortized, Len O(1), Retain
// O(n). After the slot array and the id index have grown to the working
// size nothing allocates. docs/design-notes.md gives the reasons for the
// layout, the sift and the marking.
package heap4ary

import (
	"fmt"
	"math"
	"slices"
)

// arity is the number of children of a node.
const arity = 4

// base is the slot of the root; slots below it are padding.
const base = arity - 1

// deadID marks a dead entry: its timer was removed, it keeps its place.
const deadID = math.MaxUint32

// minRebuild is the fewest dead entries that make Remove rebuild the heap
// (when they also outnumber the live ones).
const minRebuild = 64

// entry is one timer: 16 bytes, key inline.
type entry struct {
	when int64  // deadline, in the loop's clock
	seq  uint32 // scheduling order among equal deadlines
	id   uint32 // the loop's handle reference
}

func less(a, b entry) bool {
	return a.when < b.when || (a.when == b.when && a.seq < b.seq)
}

// parent returns the parent slot of slot p (p > base). The division is
// unsigned: slots are never negative, and a signed one costs a shift and
// two adds more where the compiler cannot see that.
func parent(p int) int { return int(uint(p)/arity) + arity - 2 }

// firstChild returns the slot of the first child of slot p.
func firstChild(p int) int { return arity * (p - arity + 2) }

// Heap is a min-heap of timers keyed by (when, scheduling order). The zero
// value is an empty heap ready to use. Ids must be distinct among queued
// timers; they index a table, so keep them dense (the loop's handle slots
// are). A Heap is not safe for concurrent use.
type Heap struct {
	items []entry // items[base:] is the heap, dead entries included
	pos   []int32 // pos[id] = slot of id, 0 when id is not queued
	seq   uint32  // next sequence number
	dead  int     // entries marked dead
}

// Len returns the number of queued timers. O(1).
func (h *Heap) Len() int {
	if len(h.items) == 0 {
		return 0
	}
	return len(h.items) - base - h.dead
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
	p := len(h.items)
	h.items = append(h.items, e)
	if p > base && less(e, h.items[parent(p)]) {
		h.up(p, e, base)
		return
	}
	h.pos[id] = int32(p) // where most timers stay: a later deadline than the parent's
}

// Peek returns the earliest timer without removing it; ok is false when
// the heap is empty. O(1), after dropping the dead entries at the top.
func (h *Heap) Peek() (when int64, id uint32, ok bool) {
	if h.Len() == 0 {
		return 0, 0, false
	}
	h.dropDeadTop()
	e := h.items[base]
	return e.when, e.id, true
}

// dropDeadTop pops the dead entries at the top.
func (h *Heap) dropDeadTop() {
	for h.dead > 0 && h.items[base].id == deadID {
		h.dead--
		h.removeAt(base)
	}
}

// Pop removes and returns the earliest timer; ok is false when the heap is
// empty. O(log n): the last entry is sifted down from the root.
func (h *Heap) Pop() (when int64, id uint32, ok bool) {
	if h.Len() == 0 {
		return 0, 0, false
	}
	h.dropDeadTop()
	top := h.popTop()
	return top.when, top.id, true
}

// PopBefore removes the timers whose deadlines are before end, earliest
// first, and appends their ids to ids. O(log n) a timer.
func (h *Heap) PopBefore(end int64, ids []uint32) []uint32 {
	for h.Len() > 0 {
		h.dropDeadTop()
		if h.items[base].when >= end {
			break
		}
		ids = append(ids, h.popTop().id)
	}
	return ids
}

// popTop removes and returns the live entry at the top.
func (h *Heap) popTop() entry {
	top := h.items[base]
	h.pos[top.id] = 0
	n := len(h.items) - 1
	last := h.items[n]
	h.items = h.items[:n]
	if n > base {
		h.up(sink(h.items, h.pos, base), last, base)
	}
	return top
}

// minOf returns the index of the smallest entry in kids (the last,
// partial group of children).
func minOf(kids []entry) int {
	m := 0
	for j := 1; j < len(kids); j++ {
		if less(kids[j], kids[m]) {
			m = j
		}
	}
	return m
}

// Remove removes timer id and reports whether it was queued: the last
// entry leaves at once, any other is marked dead in place (see the package
// doc). O(1) amortized.
func (h *Heap) Remove(id uint32) bool {
	if !h.Contains(id) {
		return false
	}
	p := int(h.pos[id])
	h.pos[id] = 0
	if p == len(h.items)-1 {
		h.items = h.items[:p]
		return true
	}
	h.items[p].id = deadID
	h.dead++
	switch live := h.Len(); {
	case live == 0:
		h.items, h.dead = h.items[:base], 0
	case h.dead >= minRebuild && h.dead > live:
		h.Retain(nil)
	}
	return true
}

// Retain keeps the timers for which keep returns true (every timer when
// keep is nil), drops the others and the dead entries, and rebuilds the
// heap bottom-up. It returns how many timers it dropped. O(n). keep is
// called once per timer and must not use the heap.
func (h *Heap) Retain(keep func(id uint32) bool) (dropped int) {
	if len(h.items) <= base {
		return 0
	}
	kept := h.items[:base]
	sorted := true
	for _, e := range h.items[base:] {
		switch {
		case e.id == deadID:
		case keep == nil || keep(e.id):
			sorted = sorted && (len(kept) == base || !less(e, kept[len(kept)-1]))
			kept = append(kept, e)
		default:
			h.pos[e.id] = 0
			dropped++
		}
	}
	h.dead = 0
	clear(h.items[len(kept):])
	h.items = kept
	h.heapify(sorted)
	return dropped
}

// Check verifies the heap invariants: every node, dead or not, orders no
// later than its children, the dead count is right, and the id index
// points at every queued timer and at nothing else. It returns the first
// violation found. O(n + ids).
func (h *Heap) Check() error {
	n := len(h.items)
	dead := 0
	for p := base; p < n; p++ {
		if h.items[p].id == deadID {
			dead++
		}
		if p > base && less(h.items[p], h.items[parent(p)]) {
			return fmt.Errorf("heap order: slot %d %+v sorts before its parent slot %d %+v",
				p, h.items[p], parent(p), h.items[parent(p)])
		}
	}
	if dead != h.dead {
		return fmt.Errorf("dead entries: %d in the heap, %d counted", dead, h.dead)
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
	if id := h.items[p].id; id != deadID {
		h.pos[id] = 0
	}
	last := h.items[n]
	h.items = h.items[:n]
	if p == n {
		return
	}
	if p > base && less(last, h.items[parent(p)]) {
		h.up(p, last, base)
	} else {
		h.up(sink(h.items, h.pos, p), last, p)
	}
}

// up moves the hole at slot p towards slot top, an ancestor, until e
// fits, then stores e.
func (h *Heap) up(p int, e entry, top int) {
	items, pos := h.items, h.pos
	for p > top {
		q := parent(p)
		x := items[q]
		if !less(e, x) {
			break
		}
		put(items, pos, p, x)
		p = q
	}
	put(items, pos, p, e)
}

// sink moves the hole at slot p down to a leaf, each level taking up its
// smallest child, and returns the leaf's slot. The entry e that fills the
// hole then moves up from there, back towards p, to where it fits:
// h.up(sink(h.items, h.pos, p), e, p) sifts e down from p, Floyd's way. e
// is most often the last entry, which belongs near the leaves, so this
// makes one comparison per level fewer than testing e against the
// smallest child at every level on the way down, and e seldom moves up
// more than a level. The subtrees below p must be in heap order, and e
// must not sort before p's parent.
func sink(items []entry, pos []int32, p int) int {
	n := len(items)
	hole := &items[p] // the slot of p, written through without an index check per level
	for {
		c := firstChild(p)
		if c+arity > n {
			if c < n {
				m := c + minOf(items[c:n])
				put(items, pos, p, items[m])
				p = m
			}
			return p
		}
		// A full group, written out (a call here would not be inlined):
		// one predicted branch per comparison, the smallest key so far
		// kept in registers. The indexes are taken modulo arity so that
		// this compiles at every arity; the comparisons past arity are
		// constant-false.
		k := (*[arity]entry)(items[c : c+arity])
		j, mw, ms := 0, k[0].when, k[0].seq
		if w := k[1%arity].when; w < mw || w == mw && k[1%arity].seq < ms {
			j, mw, ms = 1, w, k[1%arity].seq
		}
		if w := k[2%arity].when; arity > 2 && (w < mw || w == mw && k[2%arity].seq < ms) {
			j, mw, ms = 2, w, k[2%arity].seq
		}
		if w := k[3%arity].when; arity > 3 && (w < mw || w == mw && k[3%arity].seq < ms) {
			j = 3
		}
		x := &k[j]
		*hole = *x
		if x.id != deadID {
			pos[x.id] = int32(p)
		}
		hole, p = x, c+j
	}
}

// put stores e in slot p and records the slot in the id index.
func put(items []entry, pos []int32, p int, e entry) {
	items[p] = e
	if e.id != deadID {
		pos[e.id] = int32(p)
	}
}

// heapify restores heap order over all slots, bottom-up, unless sorted
// says the entries are in (when, seq) order already, which a heap allows
// (timers that outlive the cancelled ones in the order they were
// scheduled). O(n). It is called with no dead entry.
func (h *Heap) heapify(sorted bool) {
	n := len(h.items)
	for p := n - 1; p >= base; p-- {
		h.pos[h.items[p].id] = int32(p)
	}
	if sorted || n <= base+1 {
		return
	}
	items, pos := h.items, h.pos
	for p := parent(n - 1); p >= base; p-- {
		// The entry sifts down while a child sorts before it: most stop
		// within a level or two, where sinking the hole to a leaf as a pop
		// does would walk down and back up.
		e, q := items[p], p
		for c := firstChild(q); c < n; c = firstChild(q) {
			m := c + minOf(items[c:min(c+arity, n)])
			if !less(items[m], e) {
				break
			}
			put(items, pos, q, items[m])
			q = m
		}
		put(items, pos, q, e)
	}
}

// renumber reassigns sequence numbers 0..n-1 in (when, seq) order, keeping
// the FIFO tie-break exact when the 32-bit counter would wrap. A sorted
// array is a valid heap. O(n log n), once per 2^32 pushes.
func (h *Heap) renumber() {
	h.Retain(nil) // without the dead
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
