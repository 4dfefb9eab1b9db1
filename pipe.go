package loopbench

import (
	"errors"
	"fmt"
	"syscall"

	"github.com/loopbench/loopbench/internal/sys/proc"
	"github.com/loopbench/loopbench/internal/sys/sock"
)

// PipeTransport is one standard stream of a subprocess, the parent's end
// of a pipe driven by the loop: asyncio's read and write pipe transports.
// The child's stdout and stderr are read pipes: their data goes to the
// protocol's PipeDataReceived. Its stdin is a write pipe: Write tries the
// pipe at once and buffers the rest. Its methods are for the loop's
// goroutine.
type PipeTransport struct {
	owner   pipeOwner
	lp      *Loop
	fd      int // the pipe's descriptor in this process
	stdFd   int // 0, 1 or 2: which stream of the child
	write   bool
	closing bool
	closed  bool
	reading bool
	paused  bool
	watched bool // a write pipe's reader, which sees its read end close

	wb         writeBuffer // a write pipe's unwritten data
	eofPending bool
	flow       *flow // a write pipe's flow control, when a StreamWriter uses it
	readFn     func()
}

// A pipeOwner is the subprocess transport a pipe belongs to: it hears
// what the pipe reads and when it is lost.
type pipeOwner interface {
	pipeData(stdFd int, data []byte)
	pipeLost(p *PipeTransport, err error)
}

func newPipeTransport(l *Loop, owner pipeOwner, fd, stdFd int, write bool) *PipeTransport {
	p := &PipeTransport{owner: owner, lp: l, fd: fd, stdFd: stdFd, write: write}
	p.readFn = p.readReady
	p.wb.setup(l, fd, p, false)
	return p
}

// Fd returns which standard stream of the child the pipe is: 0, 1 or 2.
func (p *PipeTransport) Fd() int { return p.stdFd }

// IsClosing reports whether the pipe is closing or closed.
func (p *PipeTransport) IsClosing() bool { return p.closing }

// IsReading reports whether a read pipe is being read (not paused, not
// closed).
func (p *PipeTransport) IsReading() bool { return p.reading && !p.paused }

func (p *PipeTransport) loop() *Loop { return p.lp }

// startReading reads a read pipe; on a write pipe it watches for the
// read end closing instead.
func (p *PipeTransport) startReading() {
	if p.closing {
		return
	}
	if p.write {
		p.watchReadEnd()
		return
	}
	if err := p.loop().AddReader(p.fd, p.readFn); err != nil {
		p.lost(err)
		return
	}
	p.reading = true
}

// watchReadEnd registers a reader on a write pipe, as asyncio's write
// pipe transport does: the pipe never has data to read, so it turns
// readable only with an error or a hang-up, when the child exited or
// closed its stdin (EPOLLERR, POLLERR, select's readable, kqueue's
// EV_EOF), and readEndClosed then closes the pipe without waiting for a
// write to fail. Where the system refuses the registration, the pipe is
// found broken by the next write instead.
func (p *PipeTransport) watchReadEnd() {
	if err := p.loop().AddReader(p.fd, p.readEndClosed); err == nil {
		p.watched = true
	}
}

// readEndClosed closes a write pipe whose read end closed: with a broken
// pipe error if data was still waiting to be written, else cleanly
// (asyncio's _UnixWritePipeTransport._read_ready).
func (p *PipeTransport) readEndClosed() {
	if n := p.wb.size(); n > 0 {
		p.lost(fmt.Errorf("loopbench: the child's stdin closed with %d bytes unwritten: %w", n, syscall.EPIPE))
		return
	}
	p.lost(nil)
}

func (p *PipeTransport) readReady() {
	buf := p.loop().c.readBuffer()
	n, err := proc.Read(p.fd, buf)
	switch {
	case proc.IsAgain(err):
	case err != nil:
		p.lost(err)
	case n == 0:
		p.lost(nil)
	default:
		p.owner.pipeData(p.stdFd, buf[:n])
	}
}

// PauseReading stops reading a read pipe until ResumeReading: the child
// blocks once the pipe is full.
func (p *PipeTransport) PauseReading() {
	if p.write || p.closing || p.paused {
		return
	}
	p.paused = true
	p.loop().RemoveReader(p.fd)
}

// ResumeReading reads a paused read pipe again.
func (p *PipeTransport) ResumeReading() {
	if p.write || p.closing || !p.paused {
		return
	}
	p.paused = false
	if err := p.loop().AddReader(p.fd, p.readFn); err != nil {
		p.lost(err)
	}
}

// ErrReadPipe is returned by Write on a read pipe.
var ErrReadPipe = errors.New("loopbench: Write on the read end of a pipe")

// Write writes data to a write pipe (the child's stdin): at once as far as
// the pipe takes it, the rest when it is writable again. A StreamWriter's
// Drain waits while more than the high-water mark is buffered.
func (p *PipeTransport) Write(data []byte) error {
	switch {
	case !p.write:
		return ErrReadPipe
	case p.closing || p.eofPending:
		return ErrTransportClosed
	case len(data) == 0:
		return nil
	}
	return p.wb.write(data, nil)
}

// WriteBufferSize returns how many bytes wait to be written.
func (p *PipeTransport) WriteBufferSize() int { return p.wb.size() }

// SetWriteBufferLimits sets a write pipe's high- and low-water marks, as
// Transport's: high 0 means 64 KiB, low 0 means high/4.
func (p *PipeTransport) SetWriteBufferLimits(high, low int) error { return p.wb.setLimits(high, low) }

// The pipe is its write buffer's owner.

func (p *PipeTransport) send(b []byte, _ *sock.Addr) (int, error) {
	n, err := proc.Write(p.fd, b)
	if proc.IsAgain(err) {
		return n, nil
	}
	return n, err
}

func (p *PipeTransport) writeFailed(err error) error {
	err = connectionError(err)
	p.lost(err)
	return err
}

func (p *PipeTransport) drained() {
	if p.eofPending || p.closing {
		p.lost(nil)
	}
}

func (p *PipeTransport) pauseWriting() {
	if p.flow != nil {
		p.flow.pause()
	}
}

func (p *PipeTransport) resumeWriting() {
	if p.flow != nil {
		p.flow.resume()
	}
}

// WriteEOF closes a write pipe once its buffered data is written: the
// child reads the end of its input.
func (p *PipeTransport) WriteEOF() {
	if !p.write || p.closing || p.eofPending {
		return
	}
	if p.wb.writing {
		p.eofPending = true
		return
	}
	p.lost(nil)
}

// CanWriteEOF reports whether WriteEOF can close the pipe: true for a
// write pipe (the child's stdin).
func (p *PipeTransport) CanWriteEOF() bool { return p.write }

// Close closes the pipe: a write pipe once its data is written, a read
// pipe at once.
func (p *PipeTransport) Close() {
	if p.closing {
		return
	}
	if p.write && p.wb.writing {
		p.closing = true
		return
	}
	p.lost(nil)
}

// lost closes the pipe's descriptor and reports the pipe's end to the
// process's protocol on the next iteration, with err as connectionError
// wraps it.
func (p *PipeTransport) lost(err error) {
	if p.closed {
		return
	}
	err = connectionError(err)
	p.closing, p.closed = true, true
	if (p.reading && !p.paused) || p.watched {
		p.loop().RemoveReader(p.fd)
	}
	p.wb.discard()
	p.reading = false
	proc.Close(p.fd)
	if p.flow != nil {
		p.flow.connectionLost(err)
	}
	if !p.loop().IsClosed() {
		p.loop().CallSoon(func() { p.owner.pipeLost(p, err) })
	}
}
