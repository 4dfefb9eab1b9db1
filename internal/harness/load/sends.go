package load

import (
	"time"

	"github.com/loopbench/loopbench"
)

// An open loop's sends share one loop timer (or one spin), set at the
// next intended send time of a connection waiting for it, instead of one
// timer per request. A loop's intended times form one schedule: request
// k of its i-th connection at conns[i].at(k), in the order (k, i), as
// the connections' first times are spread within one interval in the
// order of i. A cursor walks that schedule: when the timer fires, it
// passes every slot whose time has come and sends the request of each
// one whose connection waits for it. A connection busy at its slot
// sends that request late, when it is free (conn.nextAt), as one whose
// slot the cursor passed does. Since a waiting connection's slot lies
// within one interval after the cursor, the next one is found within
// one round of the connections.
type sends struct {
	set      bool          // the timer is set
	spinning bool          // a spin is set instead
	at       time.Duration // when the timer fires (time since the start)
	next     time.Duration // the send time it is set for
	timer    loopbench.Handle
	passed   time.Duration // the cursor passed every slot up to it
	k, i     int           // the cursor: request k of conns[i]
	waiting  int           // connections waiting for their send time
}

// wait has c, free, wait for its next send, at t, later than now.
func (c *conn) wait(t, now time.Duration) {
	c.state = waiting
	c.w.sends.waiting++
	c.w.sendBy(t, now)
}

// sendBy has the timer, or a spin when t is within Config.Spin of now,
// fire by t.
func (w *worker) sendBy(t, now time.Duration) {
	s := &w.sends
	if s.spinning || s.set && s.next <= t {
		return
	}
	spin := w.run.cfg.Spin
	if spin > 0 && t-now <= spin {
		w.spinOn(now)
		return
	}
	if s.set {
		s.timer.Cancel()
	}
	s.set, s.next, s.at = true, t, t-spin
	s.timer = w.callAt(s.at, w.sendFn)
}

// sendDue sends the requests whose time has come, in the order of the
// schedule, and sets the timer or spin for the next one.
func (w *worker) sendDue() {
	s := &w.sends
	fired := s.set
	s.set = false
	now := w.now()
	w.spinTick(now)
	if fired && w.run.cfg.Spin == 0 {
		now = max(now, s.at) // the loop fires a timer within its clock's resolution
	}
	s.passed = max(s.passed, now)
	for s.waiting > 0 {
		c, k := w.conns[s.i], s.k
		t := c.at(k)
		if t > now || t >= w.run.s.end {
			break
		}
		w.advance()
		if c.state == waiting && c.k == k {
			s.waiting--
			c.begin(t, w.now())
		}
	}
	w.sendNext(fired)
}

// advance moves the cursor to the next slot.
func (w *worker) advance() {
	s := &w.sends
	if s.i++; s.i == len(w.conns) {
		s.i, s.k = 0, s.k+1
	}
}

// sendNext sets the timer or spin for the next waiting connection's
// send; fired: the timer just fired (a spin goes on from there).
func (w *worker) sendNext(fired bool) {
	s := &w.sends
	now := w.now()
	if s.waiting == 0 {
		if spin := w.run.cfg.Spin; spin > 0 && w.slotWithin(now, spin) {
			w.spinOn(now) // a busy connection's next send is close: keep polling
			return
		}
		w.stopSends()
		return
	}
	k, i := s.k, s.i
	for c := w.conns[i]; c.state != waiting || c.k != k; c = w.conns[i] {
		if c.at(k) >= w.run.s.end {
			w.stopSends() // not reached: a waiting connection's slot is before the end
			return
		}
		if i++; i == len(w.conns) {
			i, k = 0, k+1
		}
	}
	t := w.conns[i].at(k)
	if spin := w.run.cfg.Spin; spin > 0 && (fired || t-now <= spin) {
		w.spinOn(now)
		return
	}
	w.stopSpin(now)
	w.sendBy(t, now)
}

// slotWithin says the cursor's slot, the schedule's next send time
// whether or not its connection is free by then, is before the window's
// end and at most d after now (or past).
func (w *worker) slotWithin(now, d time.Duration) bool {
	t := w.conns[w.sends.i].at(w.sends.k)
	return t < w.run.s.end && t-now <= d
}

// spinOn polls for the next send (sendFn in the loop's next iteration,
// which polls its selector without waiting) instead of a timer.
func (w *worker) spinOn(now time.Duration) {
	s := &w.sends
	if s.set {
		s.set = false
		s.timer.Cancel()
	}
	if !s.spinning {
		s.spinning, w.spinLast, w.spinMark = true, now, w.work
	}
	s.timer = w.l.CallSoon(w.sendFn)
}

// stopSpin ends the spin, if any, at now.
func (w *worker) stopSpin(now time.Duration) {
	w.spinTick(now)
	w.sends.spinning = false
}

// stopSends cancels the timer or spin: no connection waits any more.
func (w *worker) stopSends() {
	s := &w.sends
	if s.set || s.spinning {
		s.timer.Cancel()
	}
	s.set = false
	w.stopSpin(w.now())
}
