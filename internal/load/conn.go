package load

import (
	"encoding/binary"
	"errors"
	"io"
	"net"
	"sync"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"
)

// errMismatch is a reply that is not the echo of its request.
var errMismatch = errors.New("reply is not the echo of the request")

// conn is one connection's state. Its goroutine owns everything but c,
// which the interrupt watcher may reach under mu.
type conn struct {
	mu          sync.Mutex
	c           net.Conn // nil between a failure and the next dial
	interrupted bool

	corrected, uncorrected, lag *hdrhistogram.Histogram
	requests                    int64
	seq                         uint64
}

func newConn(c net.Conn) *conn {
	return &conn{c: c, corrected: NewHistogram(), uncorrected: NewHistogram(), lag: NewHistogram()}
}

// interrupt makes the pending read or write fail now, and every later one.
func (c *conn) interrupt() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.interrupted = true
	if c.c != nil {
		c.c.SetDeadline(time.Unix(1, 0))
	}
}

// current returns the connection, dialling a new one after a failure; nil
// when the dial failed (counted) or the run was interrupted.
func (c *conn) current(r *shared) net.Conn {
	c.mu.Lock()
	nc, stopped := c.c, c.interrupted
	c.mu.Unlock()
	if stopped {
		return nil
	}
	if nc != nil {
		return nc
	}
	nc, err := r.cfg.Dial(r.cfg.Addr)
	if err != nil {
		r.errs.add(err)
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.interrupted {
		nc.Close()
		return nil
	}
	c.c = nc
	return nc
}

// drop closes the connection after a failure; the next request dials.
func (c *conn) drop() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.c != nil {
		c.c.Close()
		c.c = nil
	}
}

func (c *conn) close() { c.drop() }

// run sends requests on the schedule until the window closes, the run is
// stopped, or the request limit is reached.
func (c *conn) run(r *shared, s schedule) {
	msg, got := make([]byte, r.cfg.Size), make([]byte, r.cfg.Size)
	var prevDone time.Time
	for i := 0; ; i++ {
		intended := time.Now()
		if s.interval > 0 {
			intended = s.start.Add(time.Duration(i) * s.interval)
			if !waitUntil(intended, s.end, r) {
				return
			}
		}
		sent := time.Now()
		if !sent.Before(s.end) || r.stopping() {
			return
		}
		if s.interval == 0 {
			intended = sent // closed loop: no schedule to fall behind
		}
		nc := c.current(r)
		if nc == nil {
			if r.stopping() {
				return
			}
			if s.interval == 0 {
				// Closed loop: pause a little before dialling again.
				waitUntil(time.Now().Add(10*time.Millisecond), s.end, r)
			}
			continue
		}
		c.seq++
		binary.LittleEndian.PutUint64(msg, c.seq)
		err := roundTrip(nc, msg, got, sent.Add(s.timeout))
		done := time.Now()
		if err != nil {
			if r.stopping() && c.wasInterrupted() {
				return // the interrupt's own deadline, not a failure
			}
			r.errs.add(err)
			c.drop()
			continue
		}
		if s.inWindow(done) {
			ok, last := r.limit.take()
			if !ok {
				r.stop(done)
				return
			}
			c.corrected.RecordValue(done.Sub(intended).Microseconds())
			c.uncorrected.RecordValue(done.Sub(sent).Microseconds())
			if s.interval > 0 {
				free := intended
				if prevDone.After(free) {
					free = prevDone
				}
				c.lag.RecordValue(sent.Sub(free).Microseconds())
			}
			c.requests++
			if last {
				r.stop(done)
				return
			}
		}
		prevDone = done
	}
}

func (c *conn) wasInterrupted() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.interrupted
}

// roundTrip writes msg and reads its echo into got, both by deadline.
func roundTrip(nc net.Conn, msg, got []byte, deadline time.Time) error {
	if err := nc.SetDeadline(deadline); err != nil {
		return err
	}
	if _, err := nc.Write(msg); err != nil {
		return err
	}
	if _, err := io.ReadFull(nc, got); err != nil {
		return err
	}
	if string(got) != string(msg) {
		return errMismatch
	}
	return nil
}

// waitUntil sleeps until t; false when the window closes or the run stops
// first. It does not spin: on a machine the server shares, a spinning
// generator slows the server it measures. The runtime's timers can wake
// late by up to a millisecond; Report.PacingLagP99 shows how late.
func waitUntil(t, end time.Time, r *shared) bool {
	for {
		now := time.Now()
		if !now.Before(end) || r.stopping() {
			return false
		}
		d := t.Sub(now)
		if d <= 0 {
			return true
		}
		time.Sleep(min(d, 50*time.Millisecond)) // wake now and then to notice a stop
	}
}
