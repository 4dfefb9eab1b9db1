package loopbench

import (
	"fmt"
	"reflect"
	"runtime"
	"runtime/debug"
	"time"
)

// --- running a callback -----------------------------------------------------

// queueSlot queues slot id to run in this iteration, after the CallSoon
// callbacks queued before it.
func (c *core) queueSlot(id uint32) {
	c.slots[id].flags |= flagQueued
	c.slotq = append(c.slotq, id)
}

// runSlots runs the callbacks of the slots queued in this iteration. They
// come after the CallSoon callbacks the iteration started with and before
// any its callbacks schedule, exactly where asyncio's _run_once appends
// them to _ready: the loop queues them only between select and dispatch,
// so in _ready they would always form the tail of the callbacks the
// iteration runs. So they wait in slotq instead, and the ready queue holds
// nothing but CallSoon callbacks.
func (c *core) runSlots() {
	for c.slotHead < len(c.slotq) {
		c.runSomeSlots()
	}
	c.slotq, c.slotHead = c.slotq[:0], 0 // ids: nothing to clear for the collector
}

// runSomeSlots runs queued slots until one panics (reported) or none is
// left.
func (c *core) runSomeSlots() {
	defer func() {
		if r := recover(); r != nil {
			c.callbackPanicked(r, c.slotHandle())
		}
	}()
	for c.slotHead < len(c.slotq) {
		id := c.slotq[c.slotHead]
		c.slotHead++
		switch fn := c.take(id); {
		case fn == nil:
		case c.cfg.Debug:
			t0 := c.time()
			fn()
			c.logSlow(t0, fn, c.slotHandle())
		default:
			fn()
		}
	}
}

// take returns the callback of slot id, just taken from slotq:
// nil for a cancelled one, the reader/writer of an fd, or the callback of
// a due timer or of a thread-safe record, whose slot it frees.
func (c *core) take(id uint32) func() {
	t := &c.slotTable // one base for the table's reads and release's writes
	s := &t.slots[id]
	s.flags &^= flagQueued
	c.cur = uint64(s.gen)<<32 | uint64(id)
	switch {
	case s.flags == flagLive:
		fn := *t.fns.at(id)
		t.release(id)
		return fn
	case s.flags&flagCancelled != 0:
		if s.flags&flagHeap == 0 {
			t.release(id)
		}
		return nil
	case s.flags&flagIO != 0:
		return *t.fns.at(id)
	case s.flags&flagTS == 0:
		panic(fmt.Sprintf("loopbench: internal error: slot %d queued with flags %#x", id, s.flags))
	}
	rec := c.ts.slotRec[id]
	c.release(id)
	fn, gen := c.ts.take(rec)
	c.cur = uint64(gen)<<32 | uint64(rec|tsBit)
	return fn
}

// runTimed runs fn, the CallSoon callback at ready-queue position pos, and
// logs it when it took at least SlowCallbackDuration (debug mode).
func (c *core) runTimed(fn func(), pos uint64) {
	t0 := c.time()
	fn()
	c.logSlow(t0, fn, c.soonHandle(pos))
}

// logSlow logs fn, started at t0, if it took at least SlowCallbackDuration.
func (c *core) logSlow(t0 time.Duration, fn func(), h Handle) {
	if d := c.time() - t0; d >= c.slow {
		c.logger.Warn("loopbench: slow callback", "handle", h.String(), "func", funcName(fn), "took", d)
	}
}

func funcName(fn func()) string {
	if f := runtime.FuncForPC(reflect.ValueOf(fn).Pointer()); f != nil {
		return f.Name()
	}
	return "?"
}

func (c *core) setExceptionHandler(h func(ExceptionContext)) {
	c.excMu.Lock()
	c.excHandl = h
	c.excMu.Unlock()
}

// slotHandle returns the handle of the slot callback running or last run.
func (c *core) slotHandle() Handle {
	return Handle{c: c, id: uint32(c.cur), gen: uint32(c.cur >> 32)}
}

// soonHandle returns the handle of the CallSoon callback at ready-queue
// position pos.
func (c *core) soonHandle(pos uint64) Handle {
	id, gen := soonID(pos)
	return Handle{c: c, id: id, gen: gen}
}

// goexitSentinel is the panic a runtime.Goexit in a task's function
// turns into (see Task.runFunction): the task has failed with ErrGoexit,
// and the callback that resumed it reports nothing.
var goexitSentinel = &goexitPanic{}

type goexitPanic struct{}

// callbackPanicked reports the panic of the callback of handle h, except
// the one a task's Goexit turns into (the task has failed with ErrGoexit).
func (c *core) callbackPanicked(r any, h Handle) {
	if r == goexitSentinel {
		return
	}
	err, ok := r.(error)
	if !ok {
		err = fmt.Errorf("%v", r)
	}
	c.report(ExceptionContext{
		Message: "panic in callback " + h.String(),
		Err:     fmt.Errorf("panic: %w", err),
		Panic:   r,
		Handle:  h,
		Stack:   debug.Stack(),
	})
}

// report calls the exception handler, or logs when there is none; a panic
// in the handler itself is logged, never propagated.
func (c *core) report(ctx ExceptionContext) {
	c.excMu.Lock()
	h := c.excHandl
	c.excMu.Unlock()
	if h != nil {
		defer func() {
			if r := recover(); r != nil {
				c.logger.Error("loopbench: panic in exception handler", "panic", fmt.Sprint(r), "handling", ctx.Message, "err", ctx.Err)
			}
		}()
		h(ctx)
		return
	}
	c.logger.Error("loopbench: "+ctx.Message, "err", ctx.Err, "stack", string(ctx.Stack))
}
