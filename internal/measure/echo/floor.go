package echo

import (
	"iter"

	"github.com/loopbench/loopbench"
)

// The order's floors: protocol-style echo servers that answer as a task
// would, for the task and stream styles to be read against. asyncio wakes
// a task that awaited a read with a callback of the next iteration, after
// that iteration's zero-timeout poll; the task then runs on its own
// stack. "protocol-next" writes each answer from a callback queued with
// CallSoon, in that order; "protocol-coroutine" has the callback resume a
// coroutine (iter.Pull) that writes and yields back, a task's two
// switches too. Neither has a future, a task, a socket operation or bytes
// handed out: what the task and stream styles cost beyond them is those.

// Answer is when an Answerer writes.
type Answer int

const (
	Now           Answer = iota // at once, in the callback that writes (the protocol style)
	NextIteration               // from a callback queued with CallSoon
	Coroutine                   // from a coroutine that callback resumes
)

// Answerer writes a connection's answers when its Answer says. It is for
// the loop's goroutine, as the transport is.
type Answerer struct {
	l     *loopbench.Loop
	t     *loopbench.Transport
	when  Answer
	buf   []byte                  // what the next iteration writes
	flush func()                  // queued when buf fills from empty
	next  func() (struct{}, bool) // resumes the coroutine; nil without one
	stop  func()                  // ends the coroutine
}

// NewAnswerer returns an Answerer on l; Bind gives it its transport.
func NewAnswerer(l *loopbench.Loop, when Answer) *Answerer {
	a := &Answerer{l: l, when: when}
	if when == Now {
		return a
	}
	a.flush = a.writeBuffered
	if when == Coroutine {
		a.next, a.stop = iter.Pull(func(yield func(struct{}) bool) {
			for {
				a.writeBuffered()
				if !yield(struct{}{}) {
					return
				}
			}
		})
		a.flush = func() { a.next() }
	}
	return a
}

// Bind makes t the transport a writes to (from ConnectionMade).
func (a *Answerer) Bind(t *loopbench.Transport) { a.t = t }

// Write writes data now, or copies it to be written with what else comes
// before the next iteration's callback.
func (a *Answerer) Write(data []byte) {
	if a.when == Now {
		a.t.Write(data)
		return
	}
	if len(a.buf) == 0 {
		a.l.CallSoon(a.flush)
	}
	a.buf = append(a.buf, data...)
}

// writeBuffered writes what came since the last write.
func (a *Answerer) writeBuffered() {
	a.t.Write(a.buf)
	a.buf = a.buf[:0]
}

// Stop ends the coroutine, if any; a callback still queued finds it
// ended and writes nothing.
func (a *Answerer) Stop() {
	if a.stop != nil {
		a.stop()
	}
}

// nextProtocol is the floors' protocol.
type nextProtocol struct {
	loopbench.ProtocolBase
	a *Answerer
	m *meter
}

func (p *nextProtocol) ConnectionMade(t *loopbench.Transport) { p.a.Bind(t) }
func (p *nextProtocol) DataReceived(data []byte)              { p.m.received(len(data)); p.a.Write(data) }
func (p *nextProtocol) ConnectionLost(error)                  { p.a.Stop() }
func (p *nextProtocol) PauseWriting()                         { p.a.t.PauseReading() }
func (p *nextProtocol) ResumeWriting()                        { p.a.t.ResumeReading() }

// ServeNext starts one of the order's floors on l: "protocol-next", or
// with coroutine "protocol-coroutine". It spends w on every request
// (none if w is nil); opts are CreateServer's.
func ServeNext(l *loopbench.Loop, coroutine bool, w *Work, network, address string, opts ...loopbench.NetOption) (*loopbench.Server, error) {
	when := NextIteration
	if coroutine {
		when = Coroutine
	}
	return l.CreateServer(network, address, func() loopbench.BaseProtocol {
		return &nextProtocol{a: NewAnswerer(l, when), m: w.meter()}
	}, opts...)
}
