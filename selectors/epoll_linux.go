//go:build linux

package selectors

import (
	"errors"
	"os"
	"sync"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

var backends = []backend{
	{"epoll", func() (Selector, error) { return newEpoll() }, nil},
	{"uring", func() (Selector, error) { return newUring() }, func() error { return uringAvail() }},
	{"poll", func() (Selector, error) { return newPoll(), nil }, nil},
	{"select", func() (Selector, error) { return newSelect(), nil }, nil},
}

// epollSel is the epoll(7) backend: O(ready) per Select. Each registration
// carries its generation in the event data, so events of a file whose fd
// was closed without Unregister and then reused are dropped.
//
// It waits with epoll_pwait2 and a nanosecond timespec; where the kernel
// refuses that call, with epoll_wait and whole milliseconds (coarse).
type epollSel struct {
	table
	epfd   int
	coarse bool // epoll_wait in milliseconds: the kernel refuses epoll_pwait2
	evs    []unix.EpollEvent
	ctl    unix.EpollEvent // scratch for epoll_ctl, kept here so it does not escape per call
	ts     kernelTimespec  // scratch for epoll_pwait2's timeout
}

// kernelTimespec is the kernel's __kernel_timespec, which epoll_pwait2
// takes on every architecture: 64-bit fields also where unix.Timespec
// has 32-bit ones (386, arm).
type kernelTimespec struct{ Sec, Nsec int64 }

func newEpoll() (*epollSel, error) {
	fd, err := unix.EpollCreate1(unix.EPOLL_CLOEXEC)
	if err != nil {
		return nil, os.NewSyscallError("epoll_create1", err)
	}
	s := &epollSel{table: table{name: "epoll"}, epfd: fd, evs: make([]unix.EpollEvent, 64)}
	s.coarse = !hasPwait2(fd)
	return s, nil
}

var (
	pwait2Once sync.Once
	pwait2OK   bool
)

// hasPwait2 reports whether the kernel takes epoll_pwait2 (Linux 5.11 and
// later), asked once per process by a zero-timeout call on epfd. ENOSYS
// is an older kernel; EPERM a seccomp filter that predates the call.
func hasPwait2(epfd int) bool {
	pwait2Once.Do(func() {
		var ev [1]unix.EpollEvent
		var ts kernelTimespec
		_, _, e := unix.Syscall6(unix.SYS_EPOLL_PWAIT2, uintptr(epfd), uintptr(unsafe.Pointer(&ev[0])), 1, uintptr(unsafe.Pointer(&ts)), 0, 0)
		pwait2OK = e != unix.ENOSYS && e != unix.EPERM
	})
	return pwait2OK
}

// Resolution is 1 ns with epoll_pwait2, 1 ms with epoll_wait.
func (s *epollSel) Resolution() time.Duration {
	if s.coarse {
		return time.Millisecond
	}
	return time.Nanosecond
}

// wait is one epoll_pwait2, or epoll_wait when coarse, with timeout d.
func (s *epollSel) wait(d time.Duration) (int, error) {
	if s.coarse {
		return unix.EpollWait(s.epfd, s.evs, msTimeout(d))
	}
	var ts *kernelTimespec
	if d >= 0 {
		s.ts = kernelTimespec{Sec: int64(d / time.Second), Nsec: int64(d % time.Second)}
		ts = &s.ts
	}
	n, _, e := unix.Syscall6(unix.SYS_EPOLL_PWAIT2, uintptr(s.epfd), uintptr(unsafe.Pointer(&s.evs[0])), uintptr(len(s.evs)), uintptr(unsafe.Pointer(ts)), 0, 0)
	return int(n), errno(e)
}

// pollReady is the Events a ready mask of epoll or poll (the same bits on
// Linux: io_uring's poll requests report poll's) stands for: errors and
// hang-ups count as both, so they report as whatever was registered.
func pollReady(m uint32) Events {
	var got Events
	if m&(unix.EPOLLIN|unix.EPOLLERR|unix.EPOLLHUP|unix.EPOLLRDHUP) != 0 {
		got |= Read
	}
	if m&(unix.EPOLLOUT|unix.EPOLLERR|unix.EPOLLHUP) != 0 {
		got |= Write
	}
	return got
}

// epollMask is the mask of ev for epoll_ctl, and for io_uring's poll
// requests (EPOLLIN and EPOLLOUT are POLLIN and POLLOUT).
func epollMask(ev Events) uint32 {
	var m uint32
	if ev&Read != 0 {
		m |= unix.EPOLLIN
	}
	if ev&Write != 0 {
		m |= unix.EPOLLOUT
	}
	if ev&Oneshot != 0 {
		m |= unix.EPOLLONESHOT
	}
	return m
}

func (s *epollSel) control(op, fd int, ev Events, gen uint32) error {
	s.ctl = unix.EpollEvent{Events: epollMask(ev), Fd: int32(fd), Pad: int32(gen)}
	if err := epollCtl(s.epfd, op, fd, &s.ctl); err != nil {
		return os.NewSyscallError("epoll_ctl", err)
	}
	return nil
}

func (s *epollSel) Register(fd int, ev Events) error {
	if err := s.check("register", fd, ev, false); err != nil {
		return err
	}
	gen := s.add(fd, ev)
	if err := s.control(unix.EPOLL_CTL_ADD, fd, ev, gen); err != nil {
		s.drop(fd)
		return s.errorf("register", fd, err)
	}
	return nil
}

func (s *epollSel) Modify(fd int, ev Events) error {
	if err := s.check("modify", fd, ev, true); err != nil {
		return err
	}
	err := s.control(unix.EPOLL_CTL_MOD, fd, ev, s.regs[fd].gen)
	if errors.Is(err, unix.ENOENT) {
		// Closing the fd without Unregister dropped it from the epoll
		// set, and the number now names another file: watch that one,
		// under a new generation (events of the old file, kept open by
		// a duplicate, keep the old one and are dropped).
		s.regs[fd].gen = s.nextGen()
		err = s.control(unix.EPOLL_CTL_ADD, fd, ev, s.regs[fd].gen)
	}
	if err != nil {
		return s.errorf("modify", fd, err)
	}
	s.set(fd, ev)
	return nil
}

func (s *epollSel) Unregister(fd int) error {
	if err := s.check("unregister", fd, 0, true); err != nil {
		return err
	}
	s.drop(fd)
	err := epollCtl(s.epfd, unix.EPOLL_CTL_DEL, fd, nil)
	if err != nil && err != unix.EBADF && err != unix.ENOENT {
		return s.errorf("unregister", fd, os.NewSyscallError("epoll_ctl", err))
	}
	return nil
}

func (s *epollSel) Select(timeout time.Duration, buf []Event) ([]Event, error) {
	if s.closed {
		return buf[:0], s.errorf("select", -1, ErrClosed)
	}
	if s.count > len(s.evs) {
		s.evs = make([]unix.EpollEvent, s.count)
	}
	var n int
	var err error
	if timeout == 0 {
		n, err = epollWaitNow(s.epfd, s.evs)
	} else {
		name := "epoll_pwait2"
		if s.coarse {
			name = "epoll_wait"
		}
		n, err = retry(name, timeout, s.wait)
	}
	buf = buf[:0]
	for _, e := range s.evs[:n] {
		fd := int(e.Fd)
		r, ok := s.lookup(fd)
		if !ok || r.gen != uint32(e.Pad) {
			continue // a stale registration of a reused fd
		}
		if got := pollReady(e.Events) & r.ev; got != 0 {
			buf = append(buf, Event{Fd: fd, Events: got})
		}
	}
	return buf, err
}

func (s *epollSel) Close() error {
	if s.closed {
		return nil
	}
	s.closed = true
	return os.NewSyscallError("close", unix.Close(s.epfd))
}
