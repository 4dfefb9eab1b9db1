package loopbench

import (
	"fmt"
	"time"
)

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

// callAt schedules fn at loop time when; op names the public call in the
// panic on a closed loop, the one check of the scheduling path.
func (c *core) callAt(op string, when time.Duration, fn func()) TimerHandle {
	if c.closed.Load() {
		panic(closedError(op))
	}
	if fn == nil {
		panic("loopbench: CallAt/CallLater with a nil func")
	}
	id := c.alloc(fn, flagHeap)
	c.timers.Push(int64(when), id)
	return TimerHandle{Handle: c.handle(id), when: when}
}

// handle returns the current handle of slot id.
func (c *core) handle(id uint32) Handle { return Handle{c: c, id: id, gen: c.slots[id].gen} }

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
