package loopbench

import (
	"fmt"

	"github.com/loopbench/loopbench/impl/ringbuffer"
)

// ringbufferLoop is the loop with the ringbuffer ready queue compiled in:
// every push and pop on the ready queue is a direct call the compiler can
// inline, so the per-callback cost of the queue is what it is on the bare
// queue. The other loop types are generated from this file by internal/gen.
type ringbufferLoop struct {
	core
	ready ringbuffer.Ring
}

func (l *ringbufferLoop) enqueue(id uint32) {
	l.slots[id].flags |= flagQueued
	l.ready.Push(id)
}

func (l *ringbufferLoop) runForever() error {
	if err := l.startRun(); err != nil {
		return err
	}
	defer l.endRun()
	for {
		if err := l.runOnce(); err != nil {
			return err
		}
		if l.stopping {
			return nil
		}
	}
}

// runOnce is one iteration, asyncio's _run_once (see the package doc).
func (l *ringbufferLoop) runOnce() error {
	l.sweepCancelled()
	evs, err := l.sel.Select(l.selectTimeout(l.ready.Len()), l.events[:0])
	l.events = evs
	if err != nil {
		return fmt.Errorf("loopbench: %w", err)
	}
	for _, ev := range evs {
		r, w := l.ioReady(ev)
		if r < tsBit {
			l.ready.Push(r)
		}
		if w < tsBit {
			l.ready.Push(w)
		}
	}
	for _, id := range l.takeThreadsafe() {
		l.enqueue(id)
	}
	if l.timers.Len() > 0 {
		end := l.time() + clockResolution
		for id, ok := l.popDue(end); ok; id, ok = l.popDue(end) {
			l.enqueue(id)
		}
	}
	for n := l.ready.Len(); n > 0; {
		n = l.runSome(n)
	}
	return nil
}

// runSome runs up to n ready callbacks. A panic ends it early: the panic
// is reported and the number of callbacks still to run is returned. The
// common case, a CallSoon callback, is always the oldest in the soon ring.
func (l *ringbufferLoop) runSome(n int) (left int) {
	defer func() {
		if r := recover(); r != nil {
			left = n
			l.callbackPanicked(r)
		}
	}()
	for n > 0 {
		n--
		id := l.ready.Pop()
		var fn func()
		if id&soonBit != 0 {
			h := l.soonHead
			p := h & uint64(len(l.soon)-1)
			fn = l.soon[p]
			l.soon[p] = nil
			l.soonHead = h + 1
			if fn == nil {
				continue // cancelled
			}
		} else if fn = l.take(id); fn == nil {
			continue
		}
		if l.cfg.Debug {
			l.runTimed(fn)
		} else {
			fn()
		}
	}
	return 0
}
