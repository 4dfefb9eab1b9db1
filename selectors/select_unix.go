//go:build darwin || dragonfly || freebsd || linux || netbsd || openbsd

package selectors

import (
	"math/bits"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// fdSetSize is FD_SETSIZE: select(2) cannot watch fds at or above it.
const fdSetSize = len(unix.FdSet{}.Bits) * wordBits

// wordBits is the bits in one word of an FdSet: 64, or 32 on 32-bit
// platforms, where a word is an int32 that must not be sign-extended.
const wordBits = int(unsafe.Sizeof(unix.FdSet{}.Bits[0])) * 8

const wordMask = 1<<wordBits - 1

// selectSel is the select(2) backend: the kernel scans fds up to the
// highest registered one; fds >= FD_SETSIZE are refused.
type selectSel struct {
	table
	r, w  unix.FdSet
	maxfd int
	tv    unix.Timeval // scratch for select's timeout
}

// Resolution is 1 µs: select's timeout is a timeval.
func (s *selectSel) Resolution() time.Duration { return time.Microsecond }

func newSelect() *selectSel { return &selectSel{table: table{name: "select"}, maxfd: -1} }

func (s *selectSel) Register(fd int, ev Events) error {
	if fd >= fdSetSize {
		return s.errorf("register", fd, ErrFdTooLarge)
	}
	if err := s.check("register", fd, ev, false); err != nil {
		return err
	}
	s.add(fd, ev)
	s.mark(fd, ev)
	s.maxfd = max(s.maxfd, fd)
	return nil
}

func (s *selectSel) mark(fd int, ev Events) {
	s.r.Clear(fd)
	s.w.Clear(fd)
	if ev&Read != 0 {
		s.r.Set(fd)
	}
	if ev&Write != 0 {
		s.w.Set(fd)
	}
}

func (s *selectSel) Modify(fd int, ev Events) error {
	if err := s.check("modify", fd, ev, true); err != nil {
		return err
	}
	s.set(fd, ev)
	s.mark(fd, ev)
	return nil
}

func (s *selectSel) Unregister(fd int) error {
	if err := s.check("unregister", fd, 0, true); err != nil {
		return err
	}
	s.drop(fd)
	s.r.Clear(fd)
	s.w.Clear(fd)
	for s.maxfd >= 0 {
		if _, ok := s.lookup(s.maxfd); ok {
			break
		}
		s.maxfd--
	}
	return nil
}

func (s *selectSel) Select(timeout time.Duration, buf []Event) ([]Event, error) {
	if s.closed {
		return buf[:0], s.errorf("select", -1, ErrClosed)
	}
	var r, w unix.FdSet
	var n int
	var err error
	if timeout == 0 {
		n, err = selectNow(s.maxfd+1, &s.r, &s.w, &r, &w)
	} else {
		n, err = retry("select", timeout, func(d time.Duration) (int, error) {
			r, w = s.r, s.w
			return unix.Select(s.maxfd+1, &r, &w, nil, tvTimeout(d, &s.tv))
		})
	}
	buf = buf[:0]
	if n == 0 {
		return buf, err
	}
	for i := range r.Bits {
		word := uint64(r.Bits[i]|w.Bits[i]) & wordMask
		for word != 0 {
			b := bits.TrailingZeros64(word)
			word &= word - 1
			fd := i*wordBits + b
			var got Events
			if r.IsSet(fd) {
				got |= Read
			}
			if w.IsSet(fd) {
				got |= Write
			}
			buf = append(buf, Event{Fd: fd, Events: got})
			if s.regs[fd].ev&Oneshot != 0 {
				s.mark(fd, 0) // off until Modify
			}
		}
	}
	return buf, err
}

func (s *selectSel) Close() error {
	s.closed = true
	return nil
}
