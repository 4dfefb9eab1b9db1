package loopbench

import (
	"io"
	"net"
	"sync"
	"time"
)

// tlsPipe is the net.Conn crypto/tls runs over: the loop feeds it the
// ciphertext the socket gave, and takes from it the ciphertext crypto/tls
// wrote, to send through the transport's write buffer. crypto/tls never
// touches the socket (asyncio's sslproto does the same with two
// MemoryBIOs).
//
// It has two modes. During the handshake it blocks: crypto/tls's
// handshake is straight-line code that cannot return half-way, so it runs
// on a helper goroutine whose Read waits for the loop to feed ciphertext,
// and whose writes wake the loop to send them. Once the handshake is
// done the helper is gone and the loop calls crypto/tls itself; Read then
// never waits: with nothing fed it returns errWouldBlock, a temporary
// net.Error, which crypto/tls passes up without keeping (a record half
// read stays in its buffer for the next call).
type tlsPipe struct {
	mu       sync.Mutex
	cond     sync.Cond
	in       []byte // ciphertext fed and not yet read
	store    []byte // in's own storage when it is not borrowed
	borrowed bool   // in is the loop's read buffer, valid until keep
	out      []byte // ciphertext written, for the loop to send
	blocking bool   // handshake mode: Read waits, Write wakes the loop
	posted   bool   // a send of out is queued on the loop
	eof      bool   // the socket reached its end
	eofShown bool   // loop mode: Read may return io.EOF once in is empty
	eofRead  bool   // Read returned io.EOF
	closed   bool
	starved  bool // the loop stopped reading the socket until in drains
	post     func(fn func())
	sendFn   func() // the loop's send of out
	resumeFn func() // the loop's resumption of socket reads
	local    net.Addr
	remote   net.Addr
}

// errWouldBlock is what Read returns in loop mode when no ciphertext is
// fed: crypto/tls keeps no temporary error, so the next Read resumes.
var errWouldBlock net.Error = wouldBlock{}

type wouldBlock struct{}

func (wouldBlock) Error() string   { return "loopbench: TLS needs more input" }
func (wouldBlock) Timeout() bool   { return false }
func (wouldBlock) Temporary() bool { return true }

// handshakeInLimit is the ciphertext the pipe holds, during the handshake,
// before the loop stops reading the socket until the helper takes it.
const handshakeInLimit = 64 << 10

func newTLSPipe(local, remote net.Addr, post func(func()), sendFn, resumeFn func()) *tlsPipe {
	p := &tlsPipe{blocking: true, post: post, sendFn: sendFn, resumeFn: resumeFn, local: local, remote: remote}
	p.cond.L = &p.mu
	return p
}

// Read gives crypto/tls the ciphertext fed: in handshake mode it waits for
// some; in loop mode it returns errWouldBlock when there is none, and
// io.EOF once the socket's end is shown.
func (p *tlsPipe) Read(b []byte) (int, error) {
	p.mu.Lock()
	for p.blocking && len(p.in) == 0 && !p.eof && !p.closed {
		p.cond.Wait()
	}
	n, resume, err := p.read(b)
	p.mu.Unlock()
	if resume {
		p.post(p.resumeFn)
	}
	return n, err
}

// read is Read's part under the lock; resume says the loop may read the
// socket again.
func (p *tlsPipe) read(b []byte) (n int, resume bool, err error) {
	switch {
	case p.closed:
		return 0, false, net.ErrClosed
	case len(p.in) > 0:
		n = copy(b, p.in)
		p.in = p.in[n:]
		if len(p.in) == 0 && p.starved {
			p.starved = false
			return n, true, nil
		}
		return n, false, nil
	case p.eof && (p.blocking || p.eofShown):
		p.eofRead = true
		return 0, false, io.EOF
	}
	return 0, false, errWouldBlock
}

// Write takes the ciphertext crypto/tls writes. In handshake mode it
// wakes the loop to send it; in loop mode the loop sends it after each
// call into crypto/tls.
func (p *tlsPipe) Write(b []byte) (int, error) {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return 0, net.ErrClosed
	}
	p.out = append(p.out, b...)
	wake := p.blocking && !p.posted
	p.posted = p.posted || wake
	p.mu.Unlock()
	if wake {
		p.post(p.sendFn)
	}
	return len(b), nil
}

// takeOut returns the ciphertext written so far and gives the pipe spare
// (emptied) to write into next.
func (p *tlsPipe) takeOut(spare []byte) []byte {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := p.out
	p.out, p.posted = spare[:0], false
	return out
}

// feed adds ciphertext from the socket. borrow (loop mode only) lets the
// pipe read data in place until keep; else it is copied. It reports
// whether the pipe now holds more than the handshake's limit.
func (p *tlsPipe) feed(data []byte, borrow bool) (full bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.in) == 0 && borrow {
		p.in, p.borrowed = data, true
		return false
	}
	p.own()
	p.in = append(p.in, data...)
	p.cond.Signal()
	if p.blocking && len(p.in) > handshakeInLimit {
		p.starved = true
		return true
	}
	return false
}

// keep copies borrowed ciphertext that crypto/tls has not read yet into
// the pipe's own storage: the loop's read buffer is about to be reused.
func (p *tlsPipe) keep() {
	p.mu.Lock()
	p.own()
	p.mu.Unlock()
}

func (p *tlsPipe) own() {
	if p.borrowed {
		p.store = append(p.store[:0], p.in...)
		p.in, p.borrowed = p.store, false
	}
}

// setEOF records the socket's end; in handshake mode Read returns io.EOF
// once the pipe is empty.
func (p *tlsPipe) setEOF() {
	p.mu.Lock()
	p.eof = true
	p.cond.Signal()
	p.mu.Unlock()
}

// showEOF lets a loop-mode Read return io.EOF once the pipe is empty; it
// reports false when that was done already or the socket has not ended.
func (p *tlsPipe) showEOF() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.eof || p.eofShown {
		return false
	}
	p.eofShown = true
	return true
}

// sawEOF reports whether crypto/tls was given the socket's end: an io.EOF
// from it then means the peer closed without close_notify.
func (p *tlsPipe) sawEOF() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.eofRead
}

// loopMode ends the handshake mode: the loop calls crypto/tls from now on.
func (p *tlsPipe) loopMode() {
	p.mu.Lock()
	p.blocking, p.starved = false, false
	p.mu.Unlock()
}

// Close makes Read and Write fail, which ends a handshake in progress.
func (p *tlsPipe) Close() error {
	p.mu.Lock()
	p.closed = true
	p.cond.Broadcast()
	p.mu.Unlock()
	return nil
}

// LocalAddr and RemoteAddr are the socket's.
func (p *tlsPipe) LocalAddr() net.Addr  { return p.local }
func (p *tlsPipe) RemoteAddr() net.Addr { return p.remote }

// Deadlines do not apply: the loop's timers bound the handshake and the
// shutdown.
func (p *tlsPipe) SetDeadline(time.Time) error      { return nil }
func (p *tlsPipe) SetReadDeadline(time.Time) error  { return nil }
func (p *tlsPipe) SetWriteDeadline(time.Time) error { return nil }
