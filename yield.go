package loopbench

import (
	"time"
	_ "unsafe" // go:linkname

	"github.com/loopbench/loopbench/selectors"
)

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
