// Package wheel is a timer queue for the loop: a hierarchical timing wheel
// (Varghese and Lauck; the shape of tokio's), with asyncio's ordering kept
// exactly.
//
// Time is counted in ticks of 1 ms, the resolution of the loop's select
// timeout. Six levels of 64 slots each cover 64^6 ticks (about two years)
// ahead of the wheel's position, elapsed; a timer goes to the level of the
// highest 6-bit digit in which its tick differs from elapsed, and to the
// slot of that digit. Each level has an occupancy bitmap, so the next
// occupied slot is found with one bit scan per level, never by walking
// slots. Slots are intrusive doubly-linked lists threaded through a
// pointer-free node array indexed by the timer's id (indices, not
// pointers: the garbage collector has nothing to scan, and a cancel is an
// O(1) unlink). Timers beyond the top level wait in an overflow list.
//
// Exact, not approximate: the wheel advances only when asked for its
// earliest timer, and then straight to the earliest occupied slot, which
// it cascades: a higher slot's timers go down a level each time until the
// earliest 1 ms slot is reached, and that slot's timers are taken into a
// small heap ordered by deadline and scheduling order (the timers of one
// millisecond are few; they are ordered when their slot is taken, not on
// insert). So Peek returns the true earliest deadline and timers come out
// in deadline order, equal deadlines in push order, as from the heaps.
// Since the wheel's position can run ahead of the loop's clock (it is at
// the earliest pending timer), a timer pushed before it goes straight to
// the heap too.
//
// Costs: Push O(1), Remove O(1) (O(log m) for one of the m taken timers),
// Peek and Pop O(1) amortized plus O(log m) in the taken heap, Len O(1),
// Retain O(n). Nothing allocates once the node array and the taken heap
// have grown to the working size.
package wheel

import (
	"fmt"
	"math"
	"math/bits"
)

const (
	tickNs      = int64(1_000_000) // a tick: 1 ms
	levelBits   = 6
	slotsPer    = 1 << levelBits
	levels      = 6
	overflowIdx = levels * slotsPer // the overflow list's head
	nilIdx      = math.MaxUint32
)

// The tag in a node's prev field says where the timer is.
const (
	tagMask = 3 << 30
	tagNode = 0 << 30 // prev is the previous node
	tagHead = 1 << 30 // first of a list: the low bits are the list
	tagHeap = 2 << 30 // in the taken heap: the low bits are its position
	tagNone = 3 << 30 // not queued
	lowMask = 1<<30 - 1
)

// node is a timer's place: 16 bytes, no pointer.
type node struct {
	when int64
	prev uint32 // tagged, see above
	next uint32 // the next node of its list, or nilIdx
}

// Wheel is a timer queue keyed by (when, scheduling order). The zero value
// is an empty wheel at tick 0 (the loop's clock starts at 0). Ids index
// its node array, so keep them dense (the loop's handle slots are). A
// Wheel is not safe for concurrent use.
type Wheel struct {
	nodes    []node
	seq      []uint64 // scheduling order by id, for ties in the taken heap
	next     uint64   // the next sequence number
	heads    [overflowIdx + 1]uint32
	occupied [levels]uint64
	elapsed  int64 // the wheel's position, in ticks
	count    int   // queued timers
	taken    heap  // timers at or before elapsed, ordered

	overflow      int   // timers in the overflow list
	overflowMin   int64 // the earliest overflow tick, when !overflowDirty
	overflowDirty bool

	scratch []uint32 // Retain's list of timers to drop
}

func tickOf(when int64) int64 {
	t := when / tickNs
	if when%tickNs < 0 {
		t-- // floor
	}
	return t
}

func (w *Wheel) init() {
	if w.nodes == nil {
		for i := range w.heads {
			w.heads[i] = nilIdx
		}
		w.nodes = []node{}
	}
}

// Len returns the number of queued timers. O(1).
func (w *Wheel) Len() int { return w.count }

// Contains reports whether id is queued. O(1).
func (w *Wheel) Contains(id uint32) bool {
	return int(id) < len(w.nodes) && w.nodes[id].prev&tagMask != tagNone
}

// Push queues timer id with deadline when. O(1). It panics if id is
// already queued.
func (w *Wheel) Push(when int64, id uint32) {
	w.init()
	if w.Contains(id) {
		panic(fmt.Sprintf("wheel: Push of id %d, already queued", id))
	}
	for int(id) >= len(w.nodes) {
		w.nodes = append(w.nodes, node{prev: tagNone, next: nilIdx})
		w.seq = append(w.seq, 0)
	}
	w.nodes[id].when = when
	w.seq[id] = w.next
	w.next++
	w.count++
	w.place(id, tickOf(when))
}

// place puts a queued id with tick t where it belongs from elapsed: the
// taken heap, a slot, or the overflow list.
func (w *Wheel) place(id uint32, t int64) {
	if t <= w.elapsed {
		w.taken.push(w, id)
		return
	}
	level := (63 - bits.LeadingZeros64(uint64(t^w.elapsed))) / levelBits
	if level >= levels {
		w.link(id, overflowIdx)
		w.overflow++
		if !w.overflowDirty && (w.overflow == 1 || t < w.overflowMin) {
			w.overflowMin = t
		}
		return
	}
	slot := int(t>>(levelBits*level)) & (slotsPer - 1)
	w.link(id, level*slotsPer+slot)
	w.occupied[level] |= 1 << slot
}

// link puts id at the head of list l.
func (w *Wheel) link(id uint32, l int) {
	n := &w.nodes[id]
	n.prev = tagHead | uint32(l)
	n.next = w.heads[l]
	if n.next != nilIdx {
		w.nodes[n.next].prev = tagNode | id
	}
	w.heads[l] = id
}

// unlink takes id out of its list and returns the list.
func (w *Wheel) unlink(id uint32) int {
	n := &w.nodes[id]
	var l int
	if n.prev&tagMask == tagHead {
		l = int(n.prev & lowMask)
		w.heads[l] = n.next
	} else {
		w.nodes[n.prev&lowMask].next = n.next
		l = -1
	}
	if n.next != nilIdx {
		w.nodes[n.next].prev = n.prev
	}
	n.prev, n.next = tagNone, nilIdx
	return l
}

// Remove removes timer id and reports whether it was queued. O(1), or
// O(log m) in the taken heap.
func (w *Wheel) Remove(id uint32) bool {
	if !w.Contains(id) {
		return false
	}
	w.count--
	n := &w.nodes[id]
	if n.prev&tagMask == tagHeap {
		w.taken.removeAt(w, int(n.prev&lowMask))
		n.prev = tagNone
		return true
	}
	t := tickOf(n.when)
	l := w.unlink(id)
	if l < 0 {
		l = w.listOf(t)
	}
	if l == overflowIdx {
		w.overflow--
		if t == w.overflowMin {
			w.overflowDirty = true
		}
	} else if w.heads[l] == nilIdx {
		w.occupied[l/slotsPer] &^= 1 << (l % slotsPer)
	}
	return true
}

// listOf returns the list a timer of tick t (after elapsed) is in.
func (w *Wheel) listOf(t int64) int {
	level := (63 - bits.LeadingZeros64(uint64(t^w.elapsed))) / levelBits
	if level >= levels {
		return overflowIdx
	}
	return level*slotsPer + int(t>>(levelBits*level))&(slotsPer-1)
}

// Peek returns the earliest timer without removing it; ok is false when
// the wheel is empty. O(1) amortized: it may advance the wheel.
func (w *Wheel) Peek() (when int64, id uint32, ok bool) {
	if w.count == 0 {
		return 0, 0, false
	}
	for w.taken.len() == 0 {
		if w.overflow == 0 && w.occupied == [levels]uint64{} {
			panic(fmt.Sprintf("wheel: internal error: %d timers counted, none queued", w.count))
		}
		w.advance()
	}
	id = w.taken.min()
	return w.nodes[id].when, id, true
}

// Pop removes and returns the earliest timer; ok is false when the wheel
// is empty.
func (w *Wheel) Pop() (when int64, id uint32, ok bool) {
	when, id, ok = w.Peek()
	if ok {
		w.popTaken(id)
	}
	return when, id, ok
}

// PopBefore removes the timers whose deadlines are before end, earliest
// first, and appends their ids to ids.
func (w *Wheel) PopBefore(end int64, ids []uint32) []uint32 {
	for {
		when, id, ok := w.Peek()
		if !ok || when >= end {
			return ids
		}
		w.popTaken(id)
		ids = append(ids, id)
	}
}

// popTaken removes id, the earliest timer, from the top of the taken heap.
func (w *Wheel) popTaken(id uint32) {
	w.taken.removeAt(w, 0)
	w.nodes[id].prev = tagNone
	w.count--
}

// advance moves elapsed to the start of the earliest occupied slot and
// cascades that slot a level down (into the taken heap from level 0), or
// brings the overflow list back into the wheel when it is earlier.
func (w *Wheel) advance() {
	for level := range levels {
		digit := uint(w.elapsed>>(levelBits*level)) & (slotsPer - 1)
		occ := w.occupied[level] & (^uint64(0) << digit)
		if occ == 0 {
			continue
		}
		// The slot starts after elapsed and within its top-level span,
		// before anything in the overflow, which lies in a later one.
		slot := bits.TrailingZeros64(occ)
		span := int64(1) << (levelBits * (level + 1))
		w.elapsed = w.elapsed&^(span-1) | int64(slot)<<(levelBits*level)
		l := level*slotsPer + slot
		head := w.heads[l]
		w.heads[l] = nilIdx
		w.occupied[level] &^= 1 << slot
		for id := head; id != nilIdx; {
			next := w.nodes[id].next
			w.nodes[id].prev, w.nodes[id].next = tagNone, nilIdx
			w.place(id, tickOf(w.nodes[id].when))
			id = next
		}
		return
	}
	// The levels are empty: move to the overflow's earliest and bring the
	// overflow list back in; what still lies beyond the top level stays.
	w.elapsed = w.overflowTick()
	head := w.heads[overflowIdx]
	w.heads[overflowIdx] = nilIdx
	w.overflow, w.overflowDirty = 0, false
	for id := head; id != nilIdx; {
		next := w.nodes[id].next
		w.nodes[id].prev, w.nodes[id].next = tagNone, nilIdx
		w.place(id, tickOf(w.nodes[id].when))
		id = next
	}
}

// overflowTick returns the earliest tick in the overflow list, scanning it
// when a removal made the cached one stale (the list holds timers more
// than two years ahead: it is rarely more than empty).
func (w *Wheel) overflowTick() int64 {
	if w.overflowDirty {
		w.overflowMin = math.MaxInt64
		for id := w.heads[overflowIdx]; id != nilIdx; id = w.nodes[id].next {
			w.overflowMin = min(w.overflowMin, tickOf(w.nodes[id].when))
		}
		w.overflowDirty = false
	}
	return w.overflowMin
}

// Retain keeps the timers for which keep returns true and drops the
// others. It returns how many it dropped. O(n). keep is called once per
// timer and must not use the wheel.
func (w *Wheel) Retain(keep func(id uint32) bool) (dropped int) {
	if w.count == 0 {
		return 0
	}
	drop := w.scratch[:0]
	for i := 0; i < w.taken.len(); i++ {
		if id := w.taken.ids[i]; !keep(id) {
			drop = append(drop, id)
		}
	}
	for l := range w.heads {
		for id := w.heads[l]; id != nilIdx; id = w.nodes[id].next {
			if !keep(id) {
				drop = append(drop, id)
			}
		}
	}
	for _, id := range drop {
		w.Remove(id)
	}
	clear(drop)
	w.scratch = drop[:0]
	return len(drop)
}
