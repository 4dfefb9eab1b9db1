package loopbench

import (
	"crypto/tls"
	"fmt"
)

// DefaultTLSHandshakeWorkers is how many TLS handshakes a loop runs at
// once unless SetTLSHandshakeWorkers says otherwise.
const DefaultTLSHandshakeWorkers = 256

// tlsLoop is a loop's TLS state: its handshake helpers, and the buffer
// its TLS transports decrypt into.
type tlsLoop struct {
	limit int              // 0: DefaultTLSHandshakeWorkers
	roles [2]tlsWorkerPool // the servers' handshakes and the clients'
	plain []byte
}

// tls is the loop's part that holds its TLS state.
func (c *core) tls() *tlsLoop { return c.parts[partTLS].(*tlsLoop) }

// closePart ends nothing: a handshake in flight ends with its transport.
func (*tlsLoop) closePart() {}

// tlsWorkerPool counts one role's helper goroutines and queues the
// handshakes waiting for one. Servers and clients have a pool each, so
// that a loop connected to itself cannot fill every helper with clients
// waiting for server handshakes that wait for a helper.
type tlsWorkerPool struct {
	running int // helpers started and not yet reported back
	queue   []pendingHandshake
}

// A pendingHandshake is a TLS layer's handshake as the pools see it.
type pendingHandshake interface {
	run()          // starts the handshake on a helper goroutine
	waiting() bool // its connection still waits for it
}

// SetTLSHandshakeWorkers sets how many TLS handshakes the loop runs at
// once on each side: n as the server and n as the client. crypto/tls's
// handshake is straight-line code that cannot stop half-way to wait for
// the network, so each runs on a helper goroutine of its own, fed by the
// loop, which ends with the handshake: an open TLS connection has no
// goroutine. Handshakes beyond n wait their turn, in the order they came,
// their timeouts running. A server starts a connection's handshake when
// its first bytes arrive, so a silent client holds no helper. n must be
// at least 1; the default is DefaultTLSHandshakeWorkers.
func (l *Loop) SetTLSHandshakeWorkers(n int) error {
	if n < 1 {
		return fmt.Errorf("loopbench: SetTLSHandshakeWorkers(%d): want at least 1", n)
	}
	l.c.tls().limit = n
	for role := range l.c.tls().roles {
		l.c.startQueuedHandshakes(role)
	}
	return nil
}

// TLSHandshakes returns how many TLS handshakes run on helper goroutines
// now (servers' and clients' together) and how many wait for one.
func (l *Loop) TLSHandshakes() (running, waiting int) {
	for _, p := range l.c.tls().roles {
		running += p.running
		for _, h := range p.queue {
			if h.waiting() {
				waiting++
			}
		}
	}
	return running, waiting
}

func (c *core) handshakeLimit() int {
	if c.tls().limit == 0 {
		return DefaultTLSHandshakeWorkers
	}
	return c.tls().limit
}

// startHandshake starts h's handshake now if a helper of its role is
// free, else when one is.
func (c *core) startHandshake(h pendingHandshake, role int) {
	p := &c.tls().roles[role]
	if p.running < c.handshakeLimit() {
		p.running++
		h.run()
		return
	}
	p.queue = append(p.queue, h)
}

// handshakeEnded frees the helper of a handshake of role that ended.
func (c *core) handshakeEnded(role int) {
	c.tls().roles[role].running--
	c.startQueuedHandshakes(role)
}

// startQueuedHandshakes starts the waiting handshakes of role that the
// free helpers allow, skipping those whose connection ended meanwhile.
func (c *core) startQueuedHandshakes(role int) {
	p := &c.tls().roles[role]
	for len(p.queue) > 0 && p.running < c.handshakeLimit() {
		h := p.queue[0]
		p.queue[0] = nil
		p.queue = p.queue[1:]
		if h.waiting() {
			p.running++
			h.run()
		}
	}
	if len(p.queue) == 0 {
		p.queue = nil
	}
}

// plainBuffer returns the buffer TLS transports decrypt into for a
// Protocol: they decrypt one at a time, and DataReceived's slice is valid
// only during the call.
func (c *core) plainBuffer() []byte {
	if c.tls().plain == nil {
		c.tls().plain = make([]byte, readBufferSize)
	}
	return c.tls().plain
}

// handshake runs crypto/tls's handshake on a helper goroutine; a panic in
// one of the config's callbacks becomes its error.
func handshake(c *tls.Conn) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("panic in a TLS callback: %v", r)
		}
	}()
	return c.Handshake()
}
