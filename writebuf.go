package loopbench

import (
	"fmt"

	"github.com/loopbench/loopbench/internal/sys/sock"
)

// Default write-buffer limits (asyncio's): pause the protocol above 64 KiB
// buffered, resume at a quarter of that.
const defaultHighWater = 64 << 10

// keepBuffer is the capacity a write buffer keeps once it drains; a larger
// one, left by a burst, is given back.
const keepBuffer = 256 << 10

// writeOwner is what a writeBuffer writes for: a stream socket's
// Transport, a subprocess's stdin PipeTransport or a DatagramTransport.
type writeOwner interface {
	// send makes one write of b (a datagram to `to`, or to the connected
	// peer when to is nil). A short count with a nil error means the fd is
	// full; a datagram is sent whole or not at all.
	send(b []byte, to *sock.Addr) (int, error)
	// writeFailed is told of a write error; what it returns is Write's.
	// A stream ends the transport (discarding the buffer); a datagram
	// endpoint reports the error and the datagram is dropped.
	writeFailed(err error) error
	// drained is called when the buffer emptied and the writer callback is
	// removed: a pending close or end of file can go ahead.
	drained()
	// pauseWriting and resumeWriting are called when the buffer goes over
	// the high-water mark and when it is back at the low one.
	pauseWriting()
	resumeWriting()
}

// writeBuffer is the write side every transport shares (asyncio's
// _SelectorTransport buffer, write and _write_ready, and the flow
// control of _FlowControlMixin): write tries the fd at once and keeps a
// copy of what it does not take; a writer callback sends the buffer when
// the fd is writable. The written prefix is reclaimed as it goes, so a
// buffer that never drains fully holds what waits, not everything
// written. A datagram endpoint's buffer is framed: each datagram keeps
// its bounds and destination. Its methods are for the loop's goroutine.
type writeBuffer struct {
	loop      *Loop
	fd        int
	owner     writeOwner
	buf       []byte // waiting to be written: buf[pos:]
	pos       int
	framed    bool
	frames    []frame // a framed buffer's datagrams: frames[fpos:]
	fpos      int
	high, low int
	paused    bool // the owner was told to pause
	writing   bool // the writer callback is installed
	wrFn      func()
}

// frame is one buffered datagram: its length and destination.
type frame struct {
	n  int
	to *sock.Addr
}

func (w *writeBuffer) setup(l *Loop, fd int, owner writeOwner, framed bool) {
	*w = writeBuffer{loop: l, fd: fd, owner: owner, framed: framed, high: defaultHighWater, low: defaultHighWater / 4}
	w.wrFn = w.flush
}

// size returns how many bytes wait to be written.
func (w *writeBuffer) size() int { return len(w.buf) - w.pos }

// write sends data (a datagram to `to` when framed) as far as the fd takes
// it now and buffers the rest; data may be reused when it returns.
func (w *writeBuffer) write(data []byte, to *sock.Addr) error {
	if !w.writing {
		n, err := w.owner.send(data, to)
		if err != nil {
			return w.owner.writeFailed(err)
		}
		if n == len(data) {
			return nil
		}
		if err := w.loop.AddWriter(w.fd, w.wrFn); err != nil {
			return w.owner.writeFailed(err)
		}
		w.writing = true
		data = data[n:]
	}
	w.buf = append(w.buf, data...)
	if w.framed {
		w.frames = append(w.frames, frame{len(data), to})
	}
	w.maybePause()
	return nil
}

// flush is the writer callback: it writes what is buffered, as far as the
// fd takes it.
func (w *writeBuffer) flush() {
	for w.pos < len(w.buf) {
		b, to := w.buf[w.pos:], (*sock.Addr)(nil)
		if w.framed {
			f := w.frames[w.fpos]
			b, to = b[:f.n], f.to
		}
		n, err := w.owner.send(b, to)
		if err != nil {
			if w.owner.writeFailed(err); !w.writing {
				return // the owner ended and discarded the buffer
			}
			n = len(b) // a datagram that failed is dropped
		}
		w.pos += n
		if n < len(b) {
			break // the fd is full
		}
		if w.framed {
			w.frames[w.fpos] = frame{}
			w.fpos++
		}
	}
	if w.pos < len(w.buf) {
		w.reclaim()
		w.maybeResume()
		return
	}
	w.reset()
	w.loop.RemoveWriter(w.fd)
	w.writing = false
	if w.maybeResume(); !w.writing { // the owner, resumed, may have written more
		w.owner.drained()
	}
}

// reclaim moves what waits to the front once the written prefix is most
// of the buffer, so that each byte is moved a bounded number of times.
func (w *writeBuffer) reclaim() {
	if w.pos > len(w.buf)/2 {
		w.buf = w.buf[:copy(w.buf, w.buf[w.pos:])]
		w.pos = 0
	}
	if w.fpos > len(w.frames)/2 {
		w.frames = w.frames[:copy(w.frames, w.frames[w.fpos:])]
		clear(w.frames[len(w.frames):cap(w.frames)])
		w.fpos = 0
	}
}

// reset empties the buffer, keeping a capacity of up to keepBuffer.
func (w *writeBuffer) reset() {
	if cap(w.buf) > keepBuffer {
		w.buf = nil
	}
	w.buf, w.pos = w.buf[:0], 0
	clear(w.frames)
	w.frames, w.fpos = w.frames[:0], 0
}

// discard drops what is buffered and removes the writer callback: the
// transport is ending.
func (w *writeBuffer) discard() {
	if w.writing {
		w.loop.RemoveWriter(w.fd)
		w.writing = false
	}
	w.buf, w.pos, w.frames, w.fpos = nil, 0, nil, 0
}

// setLimits sets the high- and low-water marks (asyncio's
// set_write_buffer_limits): high 0 means 64 KiB, low 0 means high/4.
func (w *writeBuffer) setLimits(high, low int) error {
	if high == 0 {
		high = defaultHighWater
	}
	if low == 0 {
		low = high / 4
	}
	if high < low || low < 0 {
		return fmt.Errorf("loopbench: SetWriteBufferLimits(%d, %d): want high >= low >= 0", high, low)
	}
	w.high, w.low = high, low
	w.maybePause()
	return nil
}

func (w *writeBuffer) maybePause() {
	if !w.paused && w.size() > w.high {
		w.paused = true
		w.owner.pauseWriting()
	}
}

func (w *writeBuffer) maybeResume() {
	if w.paused && w.size() <= w.low {
		w.paused = false
		w.owner.resumeWriting()
	}
}
