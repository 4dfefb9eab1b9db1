package load

import (
	"math"
	"time"

	"github.com/loopbench/loopbench"
)

// A loop's request timeouts share one loop timer, set at the earliest
// deadline of its requests in flight, instead of one timer per request:
// a request's deadline is its send time plus Config.Timeout, and sends
// come in time order, so a deadline is never earlier than one already
// set and a send only sets the timer when none is set. When the timer
// fires, the connections whose deadline has come time out and the timer
// is set again at the earliest deadline left. With answers in time, it
// fires about once per Timeout, each time a pass over the connections.
type deadlines struct {
	set   bool
	at    time.Duration // when the timer is set for (time since the start)
	timer loopbench.Handle
}

// expireAt has the timer fire by t (time since the start).
func (w *worker) expireAt(t time.Duration) {
	d := &w.deadlines
	if d.set && d.at <= t {
		return
	}
	if d.set {
		d.timer.Cancel()
	}
	d.set, d.at = true, t
	d.timer = w.callAt(t, w.expireFn)
}

// expire times out the requests whose deadline has come and sets the
// timer for the earliest deadline left.
func (w *worker) expire() {
	d := &w.deadlines
	d.set = false
	now := max(w.now(), d.at) // the loop fires a timer within its clock's resolution
	for _, c := range w.conns {
		if c.state == inflight && c.expires <= now {
			c.timeout(now)
		}
	}
	next := time.Duration(math.MaxInt64)
	for _, c := range w.conns {
		if c.state == inflight {
			next = min(next, c.expires)
		}
	}
	if next != math.MaxInt64 {
		w.expireAt(next)
	}
}
