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

// nextProtocol is the floors' protocol.
type nextProtocol struct {
	loopbench.ProtocolBase
	l     *loopbench.Loop
	t     *loopbench.Transport
	m     *meter
	co    bool                    // answer from a coroutine
	buf   []byte                  // what the next iteration writes
	flush func()                  // queued when buf fills from empty
	next  func() (struct{}, bool) // resumes the coroutine; nil without one
	stop  func()                  // ends the coroutine
}

func (p *nextProtocol) ConnectionMade(t *loopbench.Transport) {
	p.t = t
	p.flush = p.write
	if p.co {
		next, stop := iter.Pull(func(yield func(struct{}) bool) {
			for {
				p.write()
				if !yield(struct{}{}) {
					return
				}
			}
		})
		p.next, p.stop = next, stop
		p.flush = func() { p.next() }
	}
}

func (p *nextProtocol) DataReceived(data []byte) {
	p.m.received(len(data))
	if len(p.buf) == 0 {
		p.l.CallSoon(p.flush)
	}
	p.buf = append(p.buf, data...)
}

// write writes what the connection received since the last write.
func (p *nextProtocol) write() {
	p.t.Write(p.buf)
	p.buf = p.buf[:0]
}

func (p *nextProtocol) ConnectionLost(error) {
	if p.stop != nil {
		p.stop() // a flush still queued finds the coroutine ended
	}
}

func (p *nextProtocol) PauseWriting()  { p.t.PauseReading() }
func (p *nextProtocol) ResumeWriting() { p.t.ResumeReading() }

// ServeNext starts one of the order's floors on l: "protocol-next", or
// with coroutine "protocol-coroutine". It spends w on every request
// (none if w is nil); opts are CreateServer's.
func ServeNext(l *loopbench.Loop, coroutine bool, w *Work, network, address string, opts ...loopbench.NetOption) (*loopbench.Server, error) {
	return l.CreateServer(network, address, func() loopbench.BaseProtocol {
		return &nextProtocol{l: l, m: w.meter(), co: coroutine}
	}, opts...)
}
