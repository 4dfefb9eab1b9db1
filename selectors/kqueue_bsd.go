//go:build darwin || dragonfly || freebsd || netbsd || openbsd

package selectors

import (
	"os"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

var backends = []backend{
	{"kqueue", func() (Selector, error) { return newKqueue() }, nil},
	{"poll", func() (Selector, error) { return newPoll(), nil }, nil},
	{"select", func() (Selector, error) { return newSelect(), nil }, nil},
}

// kqueueSel is the kqueue(2) backend: O(ready) per Select, like epoll. An
// fd's readiness comes as one kernel event per filter (EVFILT_READ,
// EVFILT_WRITE), level-triggered (no EV_CLEAR); Select merges them into
// one Event per fd. The fd-reuse guard needs no generation here: closing
// an fd removes its filters from every kqueue, so a reused number starts
// with none, and Unregister forgets an fd whose filters are already gone.
type kqueueSel struct {
	table
	kq      int
	evs     []unix.Kevent_t
	changes [2]unix.Kevent_t
	merge   merger
	ts      unix.Timespec // scratch for kevent's timeout
}

// Resolution is 1 ns: kevent's timeout is a timespec.
func (s *kqueueSel) Resolution() time.Duration { return time.Nanosecond }

func newKqueue() (*kqueueSel, error) {
	syscall.ForkLock.RLock()
	kq, err := unix.Kqueue()
	if err == nil {
		unix.CloseOnExec(kq)
	}
	syscall.ForkLock.RUnlock()
	if err != nil {
		return nil, os.NewSyscallError("kqueue", err)
	}
	return &kqueueSel{table: table{name: "kqueue"}, kq: kq, evs: make([]unix.Kevent_t, 64)}, nil
}

// apply adds the filters in add and deletes those in del for fd, in one
// kevent call. Deleting a filter the kernel no longer has (the fd was
// closed) is ignored when ignoreGone is set.
func (s *kqueueSel) apply(fd int, add, del Events, ignoreGone bool) error {
	n := 0
	for _, f := range [...]struct {
		ev     Events
		filter int
	}{{Read, unix.EVFILT_READ}, {Write, unix.EVFILT_WRITE}} {
		switch {
		case add&f.ev != 0 && add&Oneshot != 0:
			unix.SetKevent(&s.changes[n], fd, f.filter, unix.EV_ADD|unix.EV_ENABLE|unix.EV_DISPATCH)
			n++
		case add&f.ev != 0:
			unix.SetKevent(&s.changes[n], fd, f.filter, unix.EV_ADD|unix.EV_ENABLE)
			n++
		case del&f.ev != 0:
			unix.SetKevent(&s.changes[n], fd, f.filter, unix.EV_DELETE)
			n++
		}
	}
	if n == 0 {
		return nil
	}
	for {
		_, err := unix.Kevent(s.kq, s.changes[:n], nil, nil)
		switch {
		case err == unix.EINTR:
			continue
		case err != nil && ignoreGone && (err == unix.EBADF || err == unix.ENOENT):
			return nil
		case err != nil:
			return os.NewSyscallError("kevent", err)
		}
		return nil
	}
}

func (s *kqueueSel) Register(fd int, ev Events) error {
	if err := s.check("register", fd, ev, false); err != nil {
		return err
	}
	if err := s.apply(fd, ev, 0, false); err != nil {
		s.remove(fd, ev) // a filter added before the failing one
		return s.errorf("register", fd, err)
	}
	s.add(fd, ev)
	return nil
}

func (s *kqueueSel) Modify(fd int, ev Events) error {
	if err := s.check("modify", fd, ev, true); err != nil {
		return err
	}
	// EV_ADD for every event asked for, not only the new ones: it changes
	// nothing on a live filter, and restores the filters of an fd closed
	// without Unregister (closing dropped them) that now names another
	// file. A filter to drop may already be gone for the same reason.
	old := s.regs[fd].ev
	if (old^ev)&Oneshot != 0 {
		// A filter keeps the EV_DISPATCH it was added with: take it out to
		// add it with the other.
		if err := s.remove(fd, old&(Read|Write)); err != nil {
			return s.errorf("modify", fd, err)
		}
		old = 0
	}
	if err := s.apply(fd, ev, 0, false); err != nil {
		return s.errorf("modify", fd, err)
	}
	if err := s.remove(fd, old&^ev&(Read|Write)); err != nil {
		return s.errorf("modify", fd, err)
	}
	s.set(fd, ev)
	return nil
}

func (s *kqueueSel) Unregister(fd int) error {
	if err := s.check("unregister", fd, 0, true); err != nil {
		return err
	}
	old := s.regs[fd].ev
	s.drop(fd)
	if err := s.remove(fd, old); err != nil {
		return s.errorf("unregister", fd, err)
	}
	return nil
}

// remove deletes fd's filters in ev one call each: kevent stops at the
// first change that fails, and a filter the kernel no longer has (the fd
// was closed, or its add failed) must not leave the other one in place.
func (s *kqueueSel) remove(fd int, ev Events) error {
	var err error
	for _, e := range [...]Events{Read, Write} {
		if ev&e != 0 {
			if err2 := s.apply(fd, 0, e, true); err == nil {
				err = err2
			}
		}
	}
	return err
}

func (s *kqueueSel) Select(timeout time.Duration, buf []Event) ([]Event, error) {
	if s.closed {
		return buf[:0], s.errorf("select", -1, ErrClosed)
	}
	if 2*s.count > len(s.evs) {
		s.evs = make([]unix.Kevent_t, 2*s.count)
	}
	n, err := retry("kevent", timeout, func(d time.Duration) (int, error) {
		return unix.Kevent(s.kq, nil, s.evs, tsTimeout(d, &s.ts))
	})
	buf = buf[:0]
	for _, e := range s.evs[:n] {
		fd := int(e.Ident)
		r, ok := s.lookup(fd)
		if !ok {
			continue
		}
		var got Events
		switch int(e.Filter) {
		case unix.EVFILT_READ:
			got = Read
		case unix.EVFILT_WRITE:
			got = Write
		}
		if e.Flags&unix.EV_ERROR != 0 {
			got = r.ev // an error reports as whatever fd was registered for
		}
		if got &= r.ev; got != 0 {
			buf = s.merge.add(buf, fd, got, len(s.regs))
		}
	}
	s.merge.done(buf)
	return buf, err
}

func (s *kqueueSel) Close() error {
	if s.closed {
		return nil
	}
	s.closed = true
	return os.NewSyscallError("close", unix.Close(s.kq))
}
