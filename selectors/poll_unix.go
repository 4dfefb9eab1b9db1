//go:build unix

package selectors

import (
	"time"

	"golang.org/x/sys/unix"
)

// pollSel is the poll(2) backend: the kernel scans every registered fd on
// each Select, O(registered). The pollfd array is kept packed; an index by
// fd makes Modify and Unregister O(1).
type pollSel struct {
	table
	pfds []unix.PollFd
	idx  []int32       // idx[fd] = position in pfds
	ts   unix.Timespec // scratch for ppoll's timeout
}

// Resolution is 1 ns where ppoll exists, else 1 ms.
func (s *pollSel) Resolution() time.Duration { return pollResolution }

func newPoll() *pollSel { return &pollSel{table: table{name: "poll"}} }

func pollMask(ev Events) int16 {
	var m int16
	if ev&Read != 0 {
		m |= unix.POLLIN
	}
	if ev&Write != 0 {
		m |= unix.POLLOUT
	}
	return m
}

func (s *pollSel) Register(fd int, ev Events) error {
	if err := s.check("register", fd, ev, false); err != nil {
		return err
	}
	s.add(fd, ev)
	for fd >= len(s.idx) {
		s.idx = append(s.idx, 0)
	}
	s.idx[fd] = int32(len(s.pfds))
	s.pfds = append(s.pfds, unix.PollFd{Fd: int32(fd), Events: pollMask(ev)})
	return nil
}

func (s *pollSel) Modify(fd int, ev Events) error {
	if err := s.check("modify", fd, ev, true); err != nil {
		return err
	}
	s.set(fd, ev)
	s.pfds[s.idx[fd]] = unix.PollFd{Fd: int32(fd), Events: pollMask(ev)} // armed again if it was off
	return nil
}

// pollFd is the fd of p: a negative Fd, which poll skips, is a oneshot
// registration that has reported, its fd complemented.
func pollFd(p *unix.PollFd) int32 {
	if p.Fd < 0 {
		return ^p.Fd
	}
	return p.Fd
}

func (s *pollSel) Unregister(fd int) error {
	if err := s.check("unregister", fd, 0, true); err != nil {
		return err
	}
	s.drop(fd)
	i, last := s.idx[fd], len(s.pfds)-1
	s.pfds[i] = s.pfds[last]
	s.idx[pollFd(&s.pfds[i])] = i
	s.pfds = s.pfds[:last]
	return nil
}

func (s *pollSel) Select(timeout time.Duration, buf []Event) ([]Event, error) {
	if s.closed {
		return buf[:0], s.errorf("select", -1, ErrClosed)
	}
	var n int
	var err error
	if timeout == 0 {
		n, err = pollNow(s.pfds)
	} else {
		n, err = retry(pollCall, timeout, func(d time.Duration) (int, error) {
			return pollWait(s.pfds, d, &s.ts)
		})
	}
	buf = buf[:0]
	for i := 0; n > 0 && i < len(s.pfds); i++ {
		p := &s.pfds[i]
		if p.Revents == 0 {
			continue
		}
		n--
		var got Events
		if p.Revents&^unix.POLLOUT != 0 {
			got |= Read
		}
		if p.Revents&^unix.POLLIN != 0 {
			got |= Write
		}
		ev := s.regs[p.Fd].ev
		if got &= ev; got != 0 {
			buf = append(buf, Event{Fd: int(p.Fd), Events: got})
			if ev&Oneshot != 0 {
				p.Fd = ^p.Fd // off until Modify
			}
		}
	}
	return buf, err
}

func (s *pollSel) Close() error {
	s.closed = true
	s.pfds = nil
	return nil
}
