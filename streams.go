package loopbench

import (
	"bytes"
	"errors"
	"fmt"
	"io"
)

// DefaultStreamLimit is a StreamReader's buffer limit unless given:
// asyncio's 64 KiB.
const DefaultStreamLimit = 64 << 10

// IncompleteReadError is asyncio's IncompleteReadError: the stream ended
// before a read could complete. Partial holds what was read (and taken
// from the stream); Expected is the length asked for, -1 for ReadUntil.
type IncompleteReadError struct {
	Partial  []byte
	Expected int
}

func (e *IncompleteReadError) Error() string {
	if e.Expected < 0 {
		return fmt.Sprintf("loopbench: %d bytes read on a total of undefined expected bytes", len(e.Partial))
	}
	return fmt.Sprintf("loopbench: %d bytes read on a total of %d expected bytes", len(e.Partial), e.Expected)
}

// Unwrap makes errors.Is(err, io.ErrUnexpectedEOF) true.
func (e *IncompleteReadError) Unwrap() error { return io.ErrUnexpectedEOF }

// LimitOverrunError is asyncio's LimitOverrunError: the separator was not
// found within the buffer's limit. The data stays in the stream; Consumed
// is how much of it was searched.
type LimitOverrunError struct {
	Consumed int
}

func (e *LimitOverrunError) Error() string {
	return fmt.Sprintf("loopbench: separator not found in the first %d bytes, more than the stream's limit", e.Consumed)
}

// ErrReadInProgress is returned when a second task reads a StreamReader
// while another waits on it (asyncio raises RuntimeError).
var ErrReadInProgress = errors.New("loopbench: another task is already waiting to read this stream")

// pauser is the flow control a StreamReader exerts on what feeds it: a
// transport's reading is paused while the buffer is over twice the limit.
type pauser interface {
	PauseReading()
	ResumeReading()
}

// StreamReader is asyncio's StreamReader: a buffer that a protocol feeds
// and tasks read, waiting for data. Its methods are for the loop's
// goroutine; the reading ones take the reading task, which they suspend.
type StreamReader struct {
	loop   *Loop
	limit  int
	buf    []byte // unread: buf[off:]
	off    int
	eof    bool
	err    error
	waiter *Future
	spare  *Future // the future of the last wait, reset for the next one
	feeder pauser
	paused bool
}

// NewStreamReader returns a reader on loop l with buffer limit limit (0
// means DefaultStreamLimit), for a protocol of your own to feed: asyncio's
// StreamReader(limit, loop).
func NewStreamReader(l *Loop, limit int) *StreamReader {
	if limit <= 0 {
		limit = DefaultStreamLimit
	}
	return &StreamReader{loop: l, limit: limit}
}

// NewStreamReader is NewStreamReader(l, limit).
//
// Deprecated: asyncio's StreamReader is a class of the module, not of the
// loop; use the package's NewStreamReader.
func (l *Loop) NewStreamReader(limit int) *StreamReader { return NewStreamReader(l, limit) }

func (r *StreamReader) buffered() []byte { return r.buf[r.off:] }

// FeedData appends data (copied) and wakes a waiting read. Feeding pauses
// the feeder's reading while more than twice the limit is buffered.
func (r *StreamReader) FeedData(data []byte) {
	if len(data) == 0 {
		return
	}
	if r.off > 0 && r.off >= len(r.buf)/2 {
		r.buf = r.buf[:copy(r.buf, r.buf[r.off:])]
		r.off = 0
	}
	if r.buf == nil { // handed over by the last read (take): one copy
		buf := make([]byte, len(data))
		copy(buf, data)
		r.buf = buf
	} else {
		r.buf = append(r.buf, data...)
	}
	r.wake()
	if r.feeder != nil && !r.paused && len(r.buffered()) > 2*r.limit {
		r.paused = true
		r.feeder.PauseReading()
	}
}

// FeedEOF marks the end of the stream and wakes a waiting read.
func (r *StreamReader) FeedEOF() {
	r.eof = true
	r.wake()
}

// SetException makes every later read fail with err (after the buffered
// data is gone for Read) and wakes a waiting read.
func (r *StreamReader) SetException(err error) {
	r.err = err
	r.wake()
}

// Exception returns the error SetException set, if any.
func (r *StreamReader) Exception() error { return r.err }

// AtEOF reports whether the stream ended and the buffer is empty.
func (r *StreamReader) AtEOF() bool { return r.eof && len(r.buffered()) == 0 }

func (r *StreamReader) wake() {
	if w := r.waiter; w != nil {
		r.waiter = nil
		w.SetResult(nil)
	}
}

// wait suspends t until data, the end of the stream or an error comes.
func (r *StreamReader) wait(t *Task) error {
	if r.waiter != nil {
		return ErrReadInProgress
	}
	if r.paused {
		r.paused = false
		r.feeder.ResumeReading()
	}
	w := r.spare
	if w == nil || w.Reset() != nil {
		w = r.loop.CreateFuture()
		r.spare = w
	}
	r.waiter = w
	_, err := t.Await(w)
	if r.waiter == w {
		r.waiter = nil
	}
	return err
}

// take removes and returns n buffered bytes, resuming the feeder once the
// buffer is back under the limit. Taking all of a buffer not much larger
// than n hands the buffer itself over (the next feed allocates another);
// otherwise the bytes are copied.
func (r *StreamReader) take(n int) []byte {
	if r.off == 0 && n == len(r.buf) && cap(r.buf) <= 2*n {
		out := r.buf[:n:n]
		r.buf = nil
		r.resume()
		return out
	}
	out := append([]byte(nil), r.buf[r.off:r.off+n]...)
	r.off += n
	if r.off == len(r.buf) {
		r.buf, r.off = r.buf[:0], 0
	}
	r.resume()
	return out
}

// resume resumes the paused feeder once the buffer is back under the
// limit.
func (r *StreamReader) resume() {
	if r.paused && len(r.buffered()) <= r.limit {
		r.paused = false
		r.feeder.ResumeReading()
	}
}

// Read reads up to n bytes, waiting while the buffer is empty. At the end
// of the stream it returns io.EOF, as an io.Reader does (asyncio returns
// b"", which a Go read loop would spin on); bytes read before the end come
// with a nil error. n < 0 reads until the end and returns all of it with
// a nil error, as io.ReadAll does; n == 0 returns no bytes and no error.
func (r *StreamReader) Read(t *Task, n int) ([]byte, error) {
	if n == 0 {
		return []byte{}, nil
	}
	if n < 0 {
		for !r.eof {
			if r.err != nil {
				return nil, r.err
			}
			if err := r.wait(t); err != nil {
				return nil, err
			}
		}
		return r.take(len(r.buffered())), nil
	}
	for len(r.buffered()) == 0 {
		switch {
		case r.err != nil:
			return nil, r.err
		case r.eof:
			return nil, io.EOF
		}
		if err := r.wait(t); err != nil {
			return nil, err
		}
	}
	return r.take(min(n, len(r.buffered()))), nil
}

// ReadExactly reads exactly n bytes. If the stream ends first, it returns
// an *IncompleteReadError holding what was left, which it takes.
func (r *StreamReader) ReadExactly(t *Task, n int) ([]byte, error) {
	if n < 0 {
		return nil, fmt.Errorf("loopbench: ReadExactly(%d): want n >= 0", n)
	}
	for len(r.buffered()) < n {
		if r.err != nil {
			return nil, r.err
		}
		if r.eof {
			return nil, &IncompleteReadError{Partial: r.take(len(r.buffered())), Expected: n}
		}
		if err := r.wait(t); err != nil {
			return nil, err
		}
	}
	return r.take(n), nil
}

// ReadUntil reads up to and including a separator. With several
// separators it stops at the match that ends first, so the shortest wins
// where two end at the same byte: Python 3.13's readuntil with a tuple
// (readuntil((b"\r\n", b"\n")) is ReadUntil(t, []byte("\r\n"),
// []byte("\n"))). If the stream ends first, it returns an
// *IncompleteReadError holding what was left, which it takes. If more
// than the limit is buffered without a separator, or a separator starts
// past the limit, it returns a *LimitOverrunError and leaves the data in
// the stream. An error set on the stream comes after what the buffer
// holds, as for Read (see SetException).
func (r *StreamReader) ReadUntil(t *Task, seps ...[]byte) ([]byte, error) {
	minLen, maxLen, err := sepLengths(seps)
	if err != nil {
		return nil, err
	}
	offset := 0 // buf[:offset] holds no separator
	for {
		buf := r.buffered()
		if len(buf)-offset >= minLen {
			if start, end := firstMatch(buf, offset, seps); end >= 0 {
				if start > r.limit {
					return nil, &LimitOverrunError{Consumed: start}
				}
				return r.take(end), nil
			}
			offset = max(0, len(buf)+1-maxLen)
			if offset > r.limit {
				return nil, &LimitOverrunError{Consumed: offset}
			}
		}
		switch {
		case r.err != nil:
			return nil, r.err
		case r.eof:
			return nil, &IncompleteReadError{Partial: r.take(len(buf)), Expected: -1}
		}
		if err := r.wait(t); err != nil {
			return nil, err
		}
	}
}

// sepLengths checks ReadUntil's separators and returns the shortest's and
// the longest's lengths.
func sepLengths(seps [][]byte) (minLen, maxLen int, err error) {
	if len(seps) == 0 {
		return 0, 0, errors.New("loopbench: ReadUntil with no separator")
	}
	minLen = len(seps[0])
	for _, sep := range seps {
		if len(sep) == 0 {
			return 0, 0, errors.New("loopbench: ReadUntil with an empty separator")
		}
		minLen, maxLen = min(minLen, len(sep)), max(maxLen, len(sep))
	}
	return minLen, maxLen, nil
}

// firstMatch returns where the separator match that ends first in
// buf[offset:] starts and ends (the shortest separator where two end
// together), or -1, -1.
func firstMatch(buf []byte, offset int, seps [][]byte) (start, end int) {
	start, end = -1, -1
	for _, sep := range seps {
		i := bytes.Index(buf[offset:], sep)
		if i < 0 {
			continue
		}
		s, e := offset+i, offset+i+len(sep)
		if end < 0 || e < end || (e == end && s > start) {
			start, end = s, e
		}
	}
	return start, end
}

// ReadLine reads a line, up to and including "\n"; at the end of the
// stream it returns what is left, possibly no bytes. A line longer than
// the limit is dropped from the stream and reported as a
// *LimitOverrunError, as asyncio's readline does.
func (r *StreamReader) ReadLine(t *Task) ([]byte, error) {
	line, err := r.ReadUntil(t, []byte{'\n'})
	var inc *IncompleteReadError
	var over *LimitOverrunError
	switch {
	case errors.As(err, &inc):
		return inc.Partial, nil
	case errors.As(err, &over):
		buf := r.buffered()
		if over.Consumed < len(buf) && buf[over.Consumed] == '\n' {
			r.take(over.Consumed + 1)
		} else {
			r.take(len(buf))
		}
		return nil, err
	}
	return line, err
}
