package wheel

import (
	"fmt"
	"math/bits"
)

// Check verifies the wheel's invariants: every taken timer is at or before
// the wheel's position and the taken heap is in order; every slot holds
// exactly the timers its level and digit say, after the position; the
// occupancy bitmaps match the slots; the overflow list holds what lies
// beyond the top level; the links agree both ways; every queued id is
// found once and the count is right. It returns the first violation.
// O(n + ids).
func (w *Wheel) Check() error {
	if w.nodes == nil {
		if w.count != 0 {
			return fmt.Errorf("%d timers counted in a wheel never pushed to", w.count)
		}
		return nil
	}
	seen := make([]bool, len(w.nodes))
	found := 0
	for i, id := range w.taken.ids {
		n := w.nodes[id]
		if n.prev != tagHeap|uint32(i) {
			return fmt.Errorf("taken heap: id %d at %d records %#x", id, i, n.prev)
		}
		if t := tickOf(n.when); t > w.elapsed {
			return fmt.Errorf("taken heap: id %d at tick %d, after the position %d", id, t, w.elapsed)
		}
		if i > 0 && less(w, id, w.taken.ids[(i-1)/2]) {
			return fmt.Errorf("taken heap order: id %d at %d sorts before its parent", id, i)
		}
		seen[id] = true
		found++
	}
	overflowMin, overflow := int64(0), 0
	for l, head := range w.heads {
		prev := uint32(tagHead | uint32(l))
		steps := 0
		for id := head; id != nilIdx; id = w.nodes[id].next {
			if steps++; steps > len(w.nodes) {
				return fmt.Errorf("list %d: a cycle", l)
			}
			n := w.nodes[id]
			if n.prev != prev {
				return fmt.Errorf("list %d: id %d records prev %#x, want %#x", l, id, n.prev, prev)
			}
			if seen[id] {
				return fmt.Errorf("id %d queued twice", id)
			}
			seen[id] = true
			found++
			t := tickOf(n.when)
			if t <= w.elapsed {
				return fmt.Errorf("list %d: id %d at tick %d, not after the position %d", l, id, t, w.elapsed)
			}
			if got := w.listOf(t); got != l {
				return fmt.Errorf("id %d at tick %d (position %d) is in list %d, belongs in %d", id, t, w.elapsed, l, got)
			}
			if l == overflowIdx {
				if overflow == 0 || t < overflowMin {
					overflowMin = t
				}
				overflow++
			}
			prev = tagNode | id
		}
		if l < overflowIdx {
			level, slot := l/slotsPer, l%slotsPer
			if occ := w.occupied[level]&(1<<slot) != 0; occ != (head != nilIdx) {
				return fmt.Errorf("level %d slot %d: occupied bit %v, list empty %v", level, slot, occ, head == nilIdx)
			}
		}
	}
	for level := range levels {
		digit := uint(w.elapsed>>(levelBits*level)) & (slotsPer - 1)
		if low := w.occupied[level] & (1<<digit - 1); low != 0 {
			return fmt.Errorf("level %d: slot %d occupied, before the position's digit %d", level, bits.TrailingZeros64(low), digit)
		}
	}
	if overflow != w.overflow {
		return fmt.Errorf("overflow: %d timers listed, %d counted", overflow, w.overflow)
	}
	if overflow > 0 && !w.overflowDirty && overflowMin != w.overflowMin {
		return fmt.Errorf("overflow: earliest tick %d, recorded %d", overflowMin, w.overflowMin)
	}
	for id, n := range w.nodes {
		if !seen[id] && n.prev != tagNone {
			return fmt.Errorf("id %d is in no list, but records %#x", id, n.prev)
		}
	}
	if found != w.count {
		return fmt.Errorf("%d timers queued, %d counted", found, w.count)
	}
	return nil
}
