package load

import (
	"encoding/binary"
	"errors"
	"io"
	"net"
	"os"
	"sync"
	"time"
)

// errMismatch is a reply that is not the echo of its request.
var errMismatch = errors.New("reply is not the echo of the request")

// conn is one connection's state. Its goroutine owns everything but c,
// which the interrupt watcher may reach under mu.
type conn struct {
	mu          sync.Mutex
	c           net.Conn // nil before the first dial succeeds and after a failure
	interrupted bool

	rec      *recorder
	seq      uint64
	prevDone time.Time // when the previous request ended: the connection was free from then
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

// current returns the connection, dialling a new one when there is
// none; nil with the dial's error when it failed, nil and no error when
// the run was interrupted.
func (c *conn) current(r *shared) (net.Conn, error) {
	c.mu.Lock()
	nc, stopped := c.c, c.interrupted
	c.mu.Unlock()
	if stopped {
		return nil, nil
	}
	if nc != nil {
		return nc, nil
	}
	nc, err := r.cfg.Dial(r.cfg.Addr)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.interrupted {
		nc.Close()
		return nil, nil
	}
	c.c = nc
	return nc, nil
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

func (c *conn) wasInterrupted() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.interrupted
}

// run sends requests on the schedule until the window closes, the run is
// stopped, or the request limit is reached. In open loop, the requests
// of the window it did not send by then are recorded as unsent.
func (c *conn) run(r *shared, s schedule) {
	msg, got := make([]byte, r.cfg.Size), make([]byte, r.cfg.Size)
	for i := 0; ; i++ {
		intended := s.at(i)
		if s.open() && !waitUntil(intended, s.end, r) {
			c.unsent(r, s, i)
			return
		}
		sent := time.Now()
		if !sent.Before(s.end) || r.stopping() {
			c.unsent(r, s, i)
			return
		}
		if !s.open() {
			intended = sent // closed loop: no schedule to fall behind
		}
		if !c.request(r, s, msg, got, intended, sent) {
			return
		}
	}
}

// request sends one request and waits for its echo; false when the run
// is over for this connection.
func (c *conn) request(r *shared, s schedule, msg, got []byte, intended, sent time.Time) bool {
	measured := s.inWindow(intended)
	if measured && s.open() {
		c.rec.pacing(sent.Sub(later(intended, c.prevDone)))
	}
	nc, err := c.current(r)
	if nc == nil {
		c.prevDone = time.Now()
		if err == nil {
			return false // interrupted
		}
		if measured {
			r.errs.add(err)
		}
		if !s.open() {
			// Closed loop: pause a little before dialling again.
			waitUntil(time.Now().Add(10*time.Millisecond), s.end, r)
		}
		return true
	}
	c.seq++
	binary.LittleEndian.PutUint64(msg, c.seq)
	err = roundTrip(nc, msg, got, sent.Add(s.timeout))
	done := time.Now()
	c.prevDone = done
	if err != nil {
		if r.stopping() && c.wasInterrupted() {
			return false // the interrupt's own deadline, not a failure
		}
		c.drop()
		if measured {
			r.errs.add(err)
			if errors.Is(err, os.ErrDeadlineExceeded) {
				c.rec.timeout(done.Sub(intended), done.Sub(sent))
			}
		}
		return true
	}
	if measured {
		ok, last := r.limit.take()
		if !ok {
			r.stop(done)
			return false
		}
		c.rec.answer(done.Sub(intended), done.Sub(sent))
		if last {
			r.stop(done)
		}
	}
	if s.inWindow(done) && !r.stoppedBefore(done) {
		c.rec.arrival()
	}
	return !r.stopping()
}

// unsent records the window's requests from the i-th on as unsent, up
// to the window's end or the run's stop.
func (c *conn) unsent(r *shared, s schedule, i int) {
	if !s.open() {
		return
	}
	end := s.end
	if t := r.stoppedAt(); !t.IsZero() && t.Before(end) {
		end = t
	}
	c.rec.unsentFrom(s.at, i, s.measure, end)
}

func later(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
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

// waitUntil waits until t; false when the window closes or the run stops
// first. It waits in slices of at most 50 ms, to notice a stop.
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
		r.cfg.wait(min(d, 50*time.Millisecond))
	}
}
