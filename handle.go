package loopbench

import (
	"fmt"
	"math"
	"slices"
	"time"
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

// Handle is a scheduled callback. It is a small value; copies refer to the
// same callback. The zero Handle refers to nothing.
type Handle struct {
	c   *core
	id  uint32
	gen uint32
}

// Cancel cancels the callback if it has not run yet. It is idempotent, and
// a stale handle (its callback ran or was dropped, and its slot was reused)
// cancels nothing. Call it on the loop's goroutine, except for handles from
// CallSoonThreadsafe, which may be cancelled from any goroutine.
func (h Handle) Cancel() {
	if h.c != nil {
		h.c.cancel(h.id, h.gen)
	}
}

// Cancelled reports whether Cancel was called while the callback was still
// pending. Once the loop has dropped the callback and reused its slot, a
// stale handle reports false.
func (h Handle) Cancelled() bool {
	return h.c != nil && h.c.cancelled(h.id, h.gen)
}

func (h Handle) String() string {
	switch {
	case h.id&tsBit != 0:
		return fmt.Sprintf("Handle(threadsafe %d, gen %d)", h.id&^tsBit, h.gen)
	case h.id&soonBit != 0:
		return fmt.Sprintf("Handle(soon %d)", soonPos(h.id, h.gen))
	}
	return fmt.Sprintf("Handle(%d, gen %d)", h.id, h.gen)
}

// TimerHandle is a Handle scheduled for a time on the loop clock.
type TimerHandle struct {
	Handle
	when time.Duration
}

// When returns the loop time the callback is scheduled for.
func (h TimerHandle) When() time.Duration { return h.when }

// ExceptionContext describes an error the loop could not return to anyone:
// a panic in a callback, or an error in a future nobody retrieved.
type ExceptionContext struct {
	Message string
	Err     error  // the error; a recovered panic value is wrapped as "panic: ..."
	Panic   any    // the recovered value, when a callback panicked
	Handle  Handle // the callback that panicked
	Stack   []byte // the panicking goroutine's stack
}

// alloc takes a slot for fn: the most recently freed one, else a new one
// at the end of the table. On a closed loop it panics with ErrClosed
// (from grow: a closed loop's table has no room).
func (c *core) alloc(fn func(), flags uint8) uint32 {
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
func (c *core) grow() {
	if c.closed.Load() {
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
func (c *core) release(id uint32) {
	*c.fns.at(id) = nil
	s := &c.slots[id]
	s.gen++
	s.flags = 0
	if s.gen != math.MaxUint32 {
		c.free = append(c.free, id)
	}
}

// handle returns the current handle of slot id.
func (c *core) handle(id uint32) Handle { return Handle{c: c, id: id, gen: c.slots[id].gen} }

// live returns slot id if gen is its current generation.
func (c *core) live(id, gen uint32) *slot {
	if int(id) >= len(c.slots) {
		return nil
	}
	if s := &c.slots[id]; s.gen == gen && s.flags&flagLive != 0 {
		return s
	}
	return nil
}

func (c *core) cancelled(id, gen uint32) bool {
	switch {
	case id&tsBit != 0:
		return c.ts.cancelled(id&^tsBit, gen)
	case id&soonBit != 0:
		fn, ok := c.rq.At(soonPos(id, gen))
		return ok && fn == nil
	}
	s := c.live(id, gen)
	return s != nil && s.flags&flagCancelled != 0
}

func (c *core) cancel(id, gen uint32) {
	switch {
	case id&tsBit != 0:
		c.ts.cancel(id&^tsBit, gen)
		return
	case id&soonBit != 0:
		c.rq.Clear(soonPos(id, gen))
		return
	}
	if s := c.live(id, gen); s != nil && s.flags&flagCancelled == 0 {
		c.cancelSlot(id)
	}
}

// cancelSlot marks slot id cancelled and frees it unless a queue still
// holds it; in eager mode the timer queue is told at once (see
// Config.TimerCancel).
func (c *core) cancelSlot(id uint32) {
	s := &c.slots[id]
	s.flags |= flagCancelled
	if s.flags&flagHeap != 0 && !c.lazy {
		c.timers.Remove(id)
		s.flags &^= flagHeap
	}
	if s.flags&(flagHeap|flagQueued) == 0 {
		c.release(id)
		return
	}
	*c.fns.at(id) = nil // the slot stays until the queue holding it lets go
	if s.flags&flagHeap != 0 {
		c.ncancelled++
	}
}
