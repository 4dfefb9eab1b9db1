package load

import (
	"encoding/binary"
	"errors"
	"io"
	"net"
	"os"
	"time"

	"github.com/loopbench/loopbench"
	"github.com/loopbench/loopbench/internal/harness/httpwire"
)

// errMismatch is a reply that is not the echo of its request.
var errMismatch = errors.New(NotEchoText)

// errTimeout is a request's timeout, named as a read's.
var errTimeout = &net.OpError{Op: "read", Net: "tcp", Err: os.ErrDeadlineExceeded}

// The states of a connection.
const (
	idle     = iota // free, nothing scheduled
	waiting         // free, waiting for its next send (sends) or a redial pause
	dialling        // its request waits for a dial
	inflight        // its request sent, the answer not all in
)

// redialPause is how long a closed-loop connection whose dial failed
// waits before dialling again.
const redialPause = 10 * time.Millisecond

// wire is an open connection: a raw socket or a TLS transport.
type wire interface {
	send(msg []byte) error
	close()
}

// conn is one connection of a worker, on its loop's thread. One request
// is outstanding at a time.
type conn struct {
	w     *worker
	wire  wire          // nil: none open (the next request dials)
	first time.Duration // the intended time of its request 0 (open loop)
	k     int           // the next request's index in the schedule
	state int
	seq   uint64
	msg   []byte
	got   int               // bytes of the echo in
	resp  httpwire.Response // an HTTP run's response parser

	intended, sent time.Duration    // of the current request
	measured       bool             // the current request is the window's
	freeAt         time.Duration    // when the previous request ended
	broken         error            // the stream is out of step: the next request fails with it
	expires        time.Duration    // the current request's deadline (time since the start)
	pending        loopbench.Handle // the closed loop's redial pause

	nextFn func()
}

func newConn(w *worker, first time.Duration) *conn {
	c := &conn{w: w, first: first}
	if h := w.run.cfg.HTTP; h != nil {
		c.msg = h.Request
	} else {
		c.msg = make([]byte, w.run.cfg.Size)
	}
	c.nextFn = c.next
	return c
}

// at is the intended time of the connection's k-th request.
func (c *conn) at(k int) time.Duration { return c.first + time.Duration(k)*c.w.run.s.interval }

// next arranges the next request, the connection being free: at once
// when its time has come (closed loop: always), else by waiting for the
// loop's send timer or spin (sends).
func (c *conn) next() { c.nextAt(c.w.now()) }

// nextAt is next at now, the time its caller read.
func (c *conn) nextAt(now time.Duration) {
	w, s := c.w, c.w.run.s
	c.state = idle
	if w.closed || now >= s.end || w.run.stoppedAt() <= now {
		return
	}
	if !s.open() {
		c.begin(now, now)
		return
	}
	switch t := c.at(c.k); {
	case t >= s.end:
	case t <= max(now, w.sends.passed): // late, or its slot was passed while it was busy
		c.begin(t, now)
	default:
		c.wait(t, now)
	}
}

// cancelWait cancels the wait for the next send.
func (c *conn) cancelWait() {
	if c.state != waiting {
		return
	}
	c.state = idle
	if !c.w.run.s.open() {
		c.pending.Cancel()
		return
	}
	if c.w.sends.waiting--; c.w.sends.waiting == 0 {
		c.w.stopSends()
	}
}

// begin starts the request intended at intended: it is sent now, after a
// dial when the connection has none, or fails at once when the stream
// is out of step.
func (c *conn) begin(intended, now time.Duration) {
	c.intended, c.measured = intended, c.w.run.s.inWindow(intended)
	c.w.busy++
	switch {
	case c.broken != nil:
		err := c.broken
		c.broken = nil
		c.k++
		c.countScheduled()
		c.fail(err)
	case c.wire == nil:
		c.state = dialling
		c.open()
	default:
		c.send(now)
	}
}

func (c *conn) countScheduled() {
	if c.measured {
		c.w.rec.scheduled++
	}
}

// send sends the current request now; its timeout runs from now.
func (c *conn) send(now time.Duration) {
	w := c.w
	w.work++
	c.countScheduled()
	if c.measured && w.run.s.open() {
		w.rec.pacing(now - max(c.intended, c.freeAt))
	}
	c.k++
	c.sent, c.got, c.state = now, 0, inflight
	c.seq++
	if c.w.run.cfg.HTTP != nil {
		c.newResponse()
	} else {
		binary.LittleEndian.PutUint64(c.msg, c.seq)
	}
	c.expires = now + w.run.s.timeout
	w.expireAt(c.expires)
	if err := c.wire.send(c.msg); err != nil {
		c.fail(err)
	}
}

// received takes bytes of the answer; arrived is their arrival at the
// socket in Unix ns (0: unknown).
func (c *conn) received(data []byte, arrived int64) {
	if c.w.run.cfg.HTTP != nil {
		c.receivedHTTP(data, arrived)
		return
	}
	c.w.work++
	if c.state != inflight {
		// Bytes with no request outstanding: the next reply is out of step.
		c.broken = errMismatch
		c.drop()
		return
	}
	need := len(c.msg) - c.got
	extra := len(data) > need
	if extra {
		data = data[:need]
	}
	if string(data) != string(c.msg[c.got:c.got+len(data)]) {
		c.fail(errMismatch)
		return
	}
	if c.got += len(data); c.got < len(c.msg) {
		return
	}
	if extra {
		c.broken = errMismatch
	}
	c.answer(c.answeredAt(arrived))
}

// datagram takes a datagram: the whole answer, or a late answer to an
// earlier request (one that timed out), which is dropped.
func (c *conn) datagram(data []byte, arrived int64) {
	if c.state != inflight || len(data) < 8 || binary.LittleEndian.Uint64(data) != c.seq {
		return
	}
	if len(data) != len(c.msg) {
		c.fail(errMismatch)
		return
	}
	c.received(data, arrived)
}

// answeredAt reads the clock once for an answer: it returns the time
// since the start and records the receive lag, the time since the
// arrival stamped by the kernel (in Unix ns, 0 when unknown).
func (c *conn) answeredAt(arrived int64) time.Duration {
	w := c.w
	if arrived == 0 || !c.measured {
		return w.now()
	}
	t := time.Now()
	w.rec.record(w.rec.recvLag, time.Duration(t.UnixNano()-arrived))
	return t.Sub(w.zero)
}

// answer records the answer, at now, to the current request. An answer the
// request limit refuses (another connection's reached it first) is
// recorded and counted answered all the same; it is only not counted
// as an arrival of the window.
func (c *conn) answer(now time.Duration) {
	w := c.w
	ok, last := true, false
	if c.measured {
		ok, last = w.run.limit.take()
		w.rec.answer(c.intended, now-c.intended, now-c.sent)
	}
	if ok && w.run.s.inWindow(now) && now <= w.run.stoppedAt() {
		w.rec.arrived++
	}
	if last {
		w.run.stop(now, w)
	}
	c.end(now)
}

// timeout ends the current request at its deadline, now.
func (c *conn) timeout(now time.Duration) {
	c.w.work++
	if c.measured {
		c.w.rec.timeout(c.intended, now-c.intended, now-c.sent)
	}
	c.fail(errTimeout)
}

// lost is the end of wire: an error or the peer's close.
func (c *conn) lost(from wire, err error) {
	if from != c.wire {
		return
	}
	if c.state != inflight {
		c.broken = err // the next request would have found it
		c.drop()
		return
	}
	if c.w.run.cfg.HTTP != nil {
		c.lostHTTP(err)
		return
	}
	if err == io.EOF && c.got > 0 {
		err = io.ErrUnexpectedEOF
	}
	c.fail(err)
}

// fail ends the current request with err: an error of the window's when
// it is one of the window's requests. The connection is closed; the next
// request dials.
func (c *conn) fail(err error) {
	c.drop()
	c.failed(err)
	c.end(c.w.now())
}

// failed counts err, when the current request is one of the window's,
// in the errors and its interval.
func (c *conn) failed(err error) {
	if c.measured {
		c.w.errs.add(err)
		c.w.rec.series.failed(c.intended)
	}
}

// end frees the connection after its request and arranges the next.
func (c *conn) end(now time.Duration) {
	c.state, c.freeAt = idle, now
	c.w.busy--
	if c.w.closed {
		c.w.maybeDone()
		return
	}
	c.nextAt(now)
}

// abandon leaves a request in flight at an interrupt out of the counts.
func (c *conn) abandon() {
	if c.state != inflight {
		return
	}
	if c.measured {
		c.w.rec.scheduled--
	}
	c.drop()
	c.state = idle
	c.w.busy--
}

func (c *conn) drop() {
	if c.wire != nil {
		c.wire.close()
		c.wire = nil
	}
}

// open opens the connection: over TLS on the loop, else by Config.Dial
// off the loop.
func (c *conn) open() {
	if c.w.run.cfg.TLS != nil {
		openTLS(c)
		return
	}
	c.w.dial(c)
}

// dialled takes a dial's outcome. A connection newRawWire cannot take
// is a failed dial: c.wire stays nil (not a nil *rawWire).
func (c *conn) dialled(nc net.Conn, err error) {
	if err == nil {
		var rw *rawWire
		if rw, err = newRawWire(c, nc); err == nil {
			c.wire = rw
		}
	}
	c.opened(err)
}

// opened continues after the connection was opened, or failed to open:
// the first time, it reports to the worker; later, the request that
// waited for it is sent now (its timeout and uncorrected latency run
// from now, not from before the dial), or fails with err.
func (c *conn) opened(err error) {
	w := c.w
	if w.dialing > 0 && c.state == idle {
		w.firstDial(err)
		return
	}
	if c.state != dialling {
		return
	}
	now := w.now()
	if w.closed {
		c.state = idle
		w.busy--
		w.maybeDone()
		return
	}
	if err == nil {
		c.freeAt = max(c.freeAt, now) // the dial is not pacing lag
		c.send(now)
		return
	}
	c.k++
	c.countScheduled()
	c.failed(err)
	c.state, c.freeAt = idle, now
	w.busy--
	if !w.run.s.open() {
		c.state = waiting
		c.pending = w.callAt(now+redialPause, c.nextFn)
		return
	}
	c.next()
}
