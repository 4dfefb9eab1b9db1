package loopbench

import (
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"time"
)

// ErrTLSTruncated is in the error ConnectionLost gets when a TLS peer
// closed the connection without close_notify, so that what came may not
// be all it sent. It wraps io.ErrUnexpectedEOF.
var ErrTLSTruncated = fmt.Errorf("loopbench: TLS peer closed the connection without close_notify: %w", io.ErrUnexpectedEOF)

// errTLSNotOpen is Write's error before the handshake completed.
var errTLSNotOpen = errors.New("loopbench: TLS handshake not complete")

// errTLSAbandoned is a handshake's outcome when the transport closed
// before it ended.
var errTLSAbandoned = fmt.Errorf("loopbench: the connection closed during the TLS handshake: %w", ErrTransportClosed)

type tlsPhase uint8

const (
	phaseHandshake tlsPhase = iota
	phaseOpen
	phaseClosing // close_notify sent: waiting for the peer's
	phaseDone
)

// tlsLayer is TLS between a Transport's socket and its protocol (asyncio's
// SSLProtocol): ciphertext read from the socket goes through a tlsPipe
// into crypto/tls and comes out as plaintext for the protocol; the
// protocol's writes are encrypted at once into the transport's write
// buffer, whose flow control the protocol sees. All of it on the loop's
// goroutine, except the handshake (see tlsPipe).
type tlsLayer struct {
	t          *Transport
	conn       *tls.Conn
	pipe       *tlsPipe
	phase      tlsPhase
	role       int  // 0 server, 1 client: the helper pool
	started    bool // the handshake was started or queued
	handshook  bool
	callMade   bool        // call ConnectionMade after the handshake (not StartTLS)
	done       func(error) // told once how the handshake ended
	hsTimeout  time.Duration
	shTimeout  time.Duration
	hsTimer    TimerHandle
	shTimer    TimerHandle
	peerClosed bool // the peer's close_notify came
	sockEOF    bool // the socket reached its end
	stalled    bool // socket reads stopped until the handshake takes its input
	spare      []byte
	deliverFn  func()
}

// tlsFor returns what puts a TLS layer on a new transport with o's
// config and timeouts, as the server or the client, done (if not nil)
// told how the handshake ended; nil for plain text (o nil or without
// TLS).
func tlsFor(o *netOptions, server bool, done func(error)) func(*Transport) secureLayer {
	if o == nil || o.tls == nil {
		return nil
	}
	return func(t *Transport) secureLayer { return newTLSLayer(t, o, server, true, done) }
}

// newTLSLayer puts TLS on t with o's config and timeouts, as the server
// or the client. A client starts its handshake at once; a server when the
// first bytes come.
func newTLSLayer(t *Transport, o *netOptions, server, callMade bool, done func(error)) *tlsLayer {
	h := &tlsLayer{t: t, callMade: callMade, done: done, hsTimeout: o.handshakeTimeout, shTimeout: o.shutdownTimeout}
	h.deliverFn = h.deliver
	if !server {
		h.role = 1
	}
	post := func(fn func()) { t.loop.c.tryCallSoonThreadsafe(fn) }
	h.pipe = newTLSPipe(t.local, t.peer, post, func() { h.send() }, h.resumeSocket)
	if server {
		h.conn = tls.Server(h.pipe, o.tls)
	} else {
		h.conn = tls.Client(h.pipe, o.tls)
	}
	h.hsTimer = t.loop.CallLater(o.handshakeTimeout, h.handshakeTimedOut)
	if !server {
		h.start()
	}
	return h
}

func (h *tlsLayer) start() {
	h.started = true
	h.t.loop.c.startHandshake(h, h.role)
}

// open reports whether the handshake is done and the shutdown not begun.
func (h *tlsLayer) open() bool { return h.phase == phaseOpen }

// waiting reports whether the connection still waits for its handshake.
func (h *tlsLayer) waiting() bool { return h.phase == phaseHandshake }

// run starts the helper goroutine of the handshake; it reports back to
// the loop and ends.
func (h *tlsLayer) run() {
	conn, post := h.conn, h.pipe.post
	go func() {
		err := handshake(conn)
		post(func() { h.handshakeDone(err) })
	}()
}

func (h *tlsLayer) handshakeDone(err error) {
	h.t.loop.c.handshakeEnded(h.role)
	if h.phase != phaseHandshake {
		return // the transport ended meanwhile
	}
	h.hsTimer.Cancel()
	h.send() // the last flight, or the alert that says why not
	if err != nil {
		h.fail(fmt.Errorf("loopbench: TLS handshake with %v: %w", h.t.peer, err))
		return
	}
	h.pipe.loopMode()
	h.phase, h.handshook = phaseOpen, true
	h.finish(nil)
	if h.callMade {
		h.t.proto.ConnectionMade(h.t)
	}
	h.resumeSocket()
	if h.t.readingPaused {
		h.t.loop.RemoveReader(h.t.fd)
		return
	}
	h.t.loop.CallSoon(h.deliverFn) // what came with the last flight
}

func (h *tlsLayer) handshakeTimedOut() {
	if h.phase == phaseHandshake {
		h.t.forceClose(fmt.Errorf("loopbench: TLS handshake with %v: not done within %v: %w", h.t.peer, h.hsTimeout, ErrTimeout))
	}
}

// fail ends the transport after a failed handshake, once the alert is
// written: ConnectionLost and the handshake's waiter get err.
func (h *tlsLayer) fail(err error) {
	h.phase = phaseDone
	h.finish(err)
	h.t.closeWith(err)
}

// finish tells the handshake's waiter how it ended, once.
func (h *tlsLayer) finish(err error) {
	if d := h.done; d != nil {
		h.done = nil
		d(err)
	}
}

// stop ends the layer as its transport is lost: timers, the handshake
// helper (its pipe fails), and a waiter still waiting.
func (h *tlsLayer) stop(err error) {
	h.phase = phaseDone
	h.hsTimer.Cancel()
	h.shTimer.Cancel()
	h.pipe.Close()
	if !h.handshook && err == nil {
		err = errTLSAbandoned
	}
	h.finish(err)
}

// send moves the ciphertext crypto/tls wrote into the transport's write
// buffer.
func (h *tlsLayer) send() error {
	out := h.pipe.takeOut(h.spare)
	defer func() { h.spare = out }()
	if len(out) == 0 || h.t.lost {
		return nil
	}
	return h.t.wb.write(out, nil)
}

// received takes ciphertext the socket gave.
func (h *tlsLayer) received(data []byte) {
	if h.phase != phaseHandshake {
		h.pipe.feed(data, true)
		h.deliver()
		return
	}
	if h.pipe.feed(data, false) {
		h.stalled = true
		h.t.loop.RemoveReader(h.t.fd)
	}
	if !h.started {
		h.start()
	}
}

// resumeSocket reads the socket again once the handshake took what
// stalled it.
func (h *tlsLayer) resumeSocket() {
	if h.stalled {
		h.stalled = false
		if !h.t.closing && !h.sockEOF {
			h.t.addReader()
		}
	}
}

// socketEOF: the socket reached its end. A handshake fails; an open
// connection delivers what is left and then finds out how it ended.
func (h *tlsLayer) socketEOF() {
	h.sockEOF = true
	h.t.loop.RemoveReader(h.t.fd)
	h.pipe.setEOF()
	switch {
	case h.phase == phaseHandshake && !h.started:
		h.fail(fmt.Errorf("loopbench: TLS handshake with %v: the peer closed the connection: %w", h.t.peer, io.EOF))
	case h.phase == phaseOpen || h.phase == phaseClosing:
		h.deliver()
	}
}

// deliver decrypts what came and hands the plaintext to the protocol,
// until crypto/tls needs more input, the protocol pauses reading, or the
// stream ends. While closing, the plaintext is dropped.
func (h *tlsLayer) deliver() {
	t := h.t
	for h.phase == phaseOpen && !t.readingPaused || h.phase == phaseClosing {
		buf := h.buffer()
		if buf == nil {
			break
		}
		n, err := h.fill(buf)
		if n > 0 && h.phase == phaseOpen {
			if t.buffered != nil {
				t.buffered.BufferUpdated(n)
			} else {
				t.plain.DataReceived(buf[:n])
			}
		}
		if err != nil && !h.readFailed(err) {
			break
		}
	}
	h.pipe.keep()
	h.send() // what reading made crypto/tls write: alerts, key updates
}

// buffer returns the buffer to decrypt into: a BufferedProtocol's own, or
// the loop's.
func (h *tlsLayer) buffer() []byte {
	t := h.t
	if t.buffered == nil || h.phase != phaseOpen {
		return t.loop.c.plainBuffer()
	}
	buf := t.buffered.GetBuffer(readBufferSize)
	if len(buf) == 0 {
		t.fatal(errors.New("loopbench: BufferedProtocol.GetBuffer returned an empty buffer"))
		return nil
	}
	return buf
}

// fill decrypts into buf until it is full or crypto/tls stops.
func (h *tlsLayer) fill(buf []byte) (int, error) {
	n := 0
	for n < len(buf) {
		k, err := h.conn.Read(buf[n:])
		n += k
		if err != nil {
			return n, err
		}
	}
	return n, nil
}

// readFailed handles what stopped a read; true means read on.
func (h *tlsLayer) readFailed(err error) bool {
	switch {
	case errors.Is(err, errWouldBlock):
		return h.pipe.showEOF() // the socket ended: read on to see how
	case errors.Is(err, io.EOF) && !h.pipe.sawEOF():
		h.closeNotified()
	case errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF):
		if h.phase == phaseClosing {
			h.t.finishClose() // closing anyway: the peer is gone
		} else {
			h.t.fatal(fmt.Errorf("loopbench: TLS with %v: %w", h.t.peer, ErrTLSTruncated))
		}
	default:
		h.t.fatal(fmt.Errorf("loopbench: TLS with %v: %w", h.t.peer, err))
	}
	return false
}

// closeNotified: the peer's close_notify came, its end of the stream.
func (h *tlsLayer) closeNotified() {
	h.peerClosed = true
	if h.phase == phaseClosing {
		h.t.finishClose()
		return
	}
	h.t.eofReceived()
}

// write encrypts data into the write buffer.
func (h *tlsLayer) write(data []byte) error {
	if h.phase != phaseOpen {
		return errTLSNotOpen
	}
	if _, err := h.conn.Write(data); err != nil {
		err = fmt.Errorf("loopbench: TLS with %v: %w", h.t.peer, err)
		h.t.fatal(err)
		return err
	}
	return h.send()
}

// writeEOF sends close_notify after what is buffered.
func (h *tlsLayer) writeEOF() {
	if h.phase != phaseOpen {
		return
	}
	h.t.eofWritten = true
	h.conn.CloseWrite()
	h.send()
}

// close is Transport.Close with TLS: during the handshake, an abort (as
// asyncio's); after it, close_notify after the data, then the wait for
// the peer's, bounded by the shutdown timeout.
func (h *tlsLayer) close() {
	t := h.t
	if h.phase != phaseOpen {
		t.forceClose(nil)
		return
	}
	h.phase = phaseClosing
	h.conn.CloseWrite()
	h.send()
	if !h.shutdownDone() {
		h.shTimer = t.loop.CallLater(h.shTimeout, h.shutdownTimedOut)
		t.addReader()
	}
	t.closeWith(nil)
}

func (h *tlsLayer) shutdownTimedOut() {
	if h.phase == phaseClosing {
		h.t.forceClose(fmt.Errorf("loopbench: TLS shutdown with %v: no close_notify within %v: %w", h.t.peer, h.shTimeout, ErrTimeout))
	}
}

// shutdownDone reports whether a closing transport need not wait for the
// peer any more.
func (h *tlsLayer) shutdownDone() bool {
	return h.phase != phaseClosing || h.peerClosed || h.sockEOF
}

// readsOnClose reports whether the socket is still read while closing:
// for the peer's close_notify.
func (h *tlsLayer) readsOnClose() bool { return !h.shutdownDone() }

// resumeReading delivers what was decrypted while the protocol paused
// reading, and reads the socket again.
func (h *tlsLayer) resumeReading() {
	if h.phase != phaseOpen {
		return // the handshake reads regardless
	}
	if !h.sockEOF && !h.peerClosed {
		h.t.addReader()
	}
	h.t.loop.CallSoon(h.deliverFn)
}
