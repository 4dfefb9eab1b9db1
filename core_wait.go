package loopbench

// Steps 2 and 3 of the iteration: the timeout of its wait, the yield
// before a wait that may block, and the poll.

import (
	"fmt"
	"time"
	_ "unsafe" // go:linkname

	"github.com/loopbench/loopbench/selectors"
)

// poll is steps 2 and 3 of the iteration: it waits for I/O events up to
// selectTimeout. When that timeout is 0 and no fd is watched, no selector
// could report anything, so it makes no system call: the wakeup fd is
// left to the next blocking poll, and thread-safe callbacks are taken by
// their flag.
func (c *core) poll(ready int) ([]selectors.Event, error) {
	d := c.selectTimeout(ready)
	if d == 0 && c.watched == 0 {
		return c.events[:0], nil
	}
	evs, err := c.sel.Select(d, c.events[:0])
	c.events = evs
	if err != nil {
		return nil, fmt.Errorf("loopbench: %w", err)
	}
	return evs, nil
}

// selectTimeout is step 2 of the iteration. Its first case, callbacks
// ready, inlines into poll.
func (c *core) selectTimeout(ready int) time.Duration {
	if ready > 0 {
		return 0
	}
	return c.idleTimeout()
}

// idleTimeout is step 2 with no callback ready: 0 when stopping or with a
// thread-safe callback pending, else the time until the earliest timer,
// capped, or -1 (block) with no timer.
// Before a timeout that may block, it yields the loop's goroutine when
// due (yieldBeforeWait): off the path of an iteration with callbacks
// ready, and of one that stops.
func (c *core) idleTimeout() time.Duration {
	if c.stopping || c.ts.pending() {
		return 0
	}
	when, _, ok := c.timers.Peek()
	if !ok {
		c.yieldBeforeWait()
		return -1
	}
	d := min(max(time.Duration(when)-c.time(), 0), maxSelectTimeout)
	if d != 0 {
		c.yieldBeforeWait()
	}
	return d
}

// yieldEvery is the longest the loop's goroutine runs on one scheduling
// turn before a blocking wait first yields it.
//
// The Go runtime's monitor thread (sysmon) counts a goroutine that has
// not been rescheduled for 10 ms as running too long. The loop's
// goroutine is never rescheduled on its own: it runs callbacks and waits
// in its selector's system call, turn after turn. So once it has run for
// 10 ms, the monitor takes its P at every look while it waits, wakes a
// thread that finds nothing to do, and goes back to its shortest sleep:
// a nanosleep and about three futex calls for every wait of the loop,
// and the context switches they bring. One yield every few milliseconds
// starts a new turn, the monitor sees a goroutine that is not running
// too long, and sleeps as long as an idle program's (up to 10 ms).
//
// The loop yields every 8 ms: a turn the monitor sees began no later
// than it saw it, so it ends before the monitor counts 10 ms of it,
// unless one iteration's callbacks run for more than 2 ms.
//
// docs/using-the-loop.md has the counts.
const yieldEvery = 8 * time.Millisecond

// goyield is the runtime's own yield (runtime.goyield, which the runtime
// keeps for packages that link to it: go.dev/issue/67401). It puts the
// goroutine at the back of its P's run queue, where runtime.Gosched puts
// it on the global queue and wakes an idle thread to look for work: with
// a P to spare (serve and load keep one), that is two futex calls a
// yield, and the goroutine often resumes on the woken thread. goyield
// wakes no thread, and the goroutine resumes on its own unless another
// thread steals it.
//
//go:linkname goyield runtime.goyield
func goyield()

// yieldBeforeWait yields the loop's goroutine once when yieldEvery has
// passed on the loop clock since the last yield. The iteration calls it
// only before a wait that may block.
func (c *core) yieldBeforeWait() {
	now := c.time()
	if now-c.yielded < yieldEvery {
		return
	}
	c.yielded = now
	if c.yieldVia != nil {
		c.yieldVia(goyield)
	} else {
		goyield()
	}
	if t, ok := c.sel.(selectors.ThreadBound); ok {
		t.Rescheduled()
	}
}
