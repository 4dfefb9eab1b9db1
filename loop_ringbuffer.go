package loopbench

import (
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

func (l *ringbufferLoop) setup(cfg Config) error {
	l.rq = &l.ready
	return l.core.setup(cfg)
}

// pushSoon, kept out of line, is CallSoon's path when the ready queue
// must grow: it panics with ErrClosed on a closed loop, whose queue has
// no room.
//
//go:noinline
func (l *ringbufferLoop) pushSoon(fn func()) uint64 {
	if l.closed.Load() {
		panic(closedError("CallSoon"))
	}
	return l.ready.Push(fn)
}

// close closes the loop and empties its ready queue, so that CallSoon on
// the closed loop takes pushSoon.
func (l *ringbufferLoop) close() error {
	err := l.core.close()
	if l.closed.Load() {
		l.ready = ringbuffer.Ring{}
	}
	return err
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
	evs, err := l.poll(l.ready.Len())
	if err != nil {
		return err
	}
	// Thread-safe callbacks first: asyncio appends them to _ready when
	// they are made, before the selector's events are processed.
	for _, id := range l.takeThreadsafe() {
		l.queueSlot(id)
	}
	for _, ev := range evs {
		r, w := l.ioReady(ev)
		if r < tsBit {
			l.queueSlot(r)
		}
		if w < tsBit {
			l.queueSlot(w)
		}
	}
	if l.timers.Len() > 0 {
		l.queueDue(l.time() + clockResolution)
	}
	for end := l.ready.Head() + uint64(l.ready.Len()); l.ready.Head() != end; {
		l.runSome(end)
	}
	l.runSlots()
	l.ready.Release()
	return nil
}

// runSome runs the CallSoon callbacks of the ready queue up to position
// end. A panic ends it early, reported; the caller calls it again for the
// rest. A nil entry is a cancelled callback. The loop counts by queue
// position, so no counter has to live in memory for the deferred recover.
func (l *ringbufferLoop) runSome(end uint64) {
	defer func() {
		if r := recover(); r != nil {
			l.callbackPanicked(r, l.soonHandle(l.ready.Head()-1))
		}
	}()
	if l.cfg.Debug {
		for pos := l.ready.Head(); pos != end; pos = l.ready.Head() {
			if fn := l.ready.Pop(); fn != nil {
				l.runTimed(fn, pos)
			}
		}
		return
	}
	for l.ready.Head() != end {
		if fn := l.ready.Pop(); fn != nil {
			fn()
		}
	}
}
