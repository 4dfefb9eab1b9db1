package loopbench

import (
	"math"
	"slices"
)

// Slot flags. The table holds timer, reader/writer and thread-safe
// handles; a CallSoon handle is a ready-queue position instead (see
// soonBit).
const (
	flagQueued    uint8 = 1 << iota // queued to run in this iteration (slotq)
	flagHeap                        // in the timer queue
	flagCancelled                   // cancelled; freed when no queue holds it
	flagIO                          // reader/writer: survives its runs
	flagTS                          // runs a thread-safe record (threadsafe.slotRec)
	flagLive                        // allocated
)

// slot is one handle in the loop's table: 8 bytes and no pointer; its
// callback is in the loop's fnTable, under the same id.
type slot struct {
	gen   uint32
	flags uint8
}

// Handle ids carry their kind in the top bits:
//
//   - tsBit: a CallSoonThreadsafe record (index in the low bits);
//   - soonBit: a CallSoon callback, named by its position in the ready
//     queue: the low 30 bits are in id, the rest in gen, so a handle never
//     aliases a later callback;
//   - neither: a slot of the table (timers, readers and writers, and the
//     callbacks of thread-safe records once the loop has taken them).
const (
	tsBit    = 1 << 31
	soonBit  = 1 << 30
	soonLow  = soonBit - 1
	maxSlots = soonBit
)

// soonID returns the handle id and gen of the CallSoon callback at
// ready-queue position pos.
func soonID(pos uint64) (id, gen uint32) {
	return soonBit | uint32(pos&soonLow), uint32(pos >> 30)
}

// soonPos is the inverse of soonID.
func soonPos(id, gen uint32) uint64 { return uint64(gen)<<30 | uint64(id&soonLow) }

// slotTable is the loop's table of timer, I/O and thread-safe handles:
// slots by id, their callbacks, and the ids free for reuse.
type slotTable struct {
	slots []slot
	fns   fnTable // the slots' callbacks
	free  []uint32
	shut  bool // the loop closed: the table has no room
}

// alloc takes a slot for fn: the most recently freed one, else a new one
// at the end of the table. On a closed loop it panics with ErrClosed
// (from grow: a closed loop's table has no room).
func (c *slotTable) alloc(fn func(), flags uint8) uint32 {
	var id uint32
	if k := len(c.free) - 1; k >= 0 {
		id = c.free[k]
		c.free = c.free[:k]
	} else {
		n := len(c.slots)
		if n == cap(c.slots) {
			c.grow()
		}
		c.slots = c.slots[:n+1]
		c.slots[n].gen = 1
		id = uint32(n)
		if n%fnChunk == 0 {
			c.fns.reserve(n + 1) // the first slot of a chunk: its callbacks' chunk
		}
	}
	c.slots[id].flags = flags | flagLive
	*c.fns.at(id) = fn
	return id
}

// grow, kept out of line, makes room for more slots: the table doubles (at
// least 64 slots), in one allocation with no list of the new slots (alloc
// adds the callbacks' chunks as slots come into use). On a closed loop it
// panics with ErrClosed instead.
//
//go:noinline
func (c *slotTable) grow() {
	if c.shut {
		panic(closedError("scheduling a callback"))
	}
	n := len(c.slots)
	more := min(max(n, 64), maxSlots-n)
	if more == 0 {
		panic("loopbench: more than 2^30 live timer and I/O handles")
	}
	c.slots = slices.Grow(c.slots, more)
}

// release frees slot id: its generation moves on, so every handle to it
// goes stale. A slot whose generation would wrap is retired instead of
// reused, so a stale handle can never match a later one.
func (c *slotTable) release(id uint32) {
	*c.fns.at(id) = nil
	s := &c.slots[id]
	s.gen++
	s.flags = 0
	if s.gen != math.MaxUint32 {
		c.free = append(c.free, id)
	}
}

// live returns slot id if gen is its current generation.
func (c *slotTable) live(id, gen uint32) *slot {
	if int(id) >= len(c.slots) {
		return nil
	}
	if s := &c.slots[id]; s.gen == gen && s.flags&flagLive != 0 {
		return s
	}
	return nil
}
