//go:build linux

package selectors

import (
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// A poll with a zero timeout cannot block, so the backends make it as a
// raw system call, as the Go runtime's own netpoll does for its
// non-blocking polls: an ordinary call tells the scheduler the goroutine
// may block (entersyscall/exitsyscall, and a background thread may take
// its processor meanwhile), which costs a zero-timeout poll about as much
// again as the kernel's work. A timeout that is not zero keeps the
// ordinary call, so that a waiting loop gives its processor up.
//
// epoll_ctl never blocks either, and is a raw system call for the same
// reason: a task-style socket operation re-arms its fd with one on
// every wait.
//
// The calls are the ones every Linux architecture has: epoll_pwait,
// ppoll and pselect6 with no signal mask, which are epoll_wait, poll and
// select. They go through the standard library's RawSyscall6, a Go
// function, where x/sys's is an assembly stub that a Go caller reaches
// through an ABI wrapper.

// epollWaitNow is epoll_wait(epfd, evs, 0).
func epollWaitNow(epfd int, evs []unix.EpollEvent) (int, error) {
	var p unsafe.Pointer
	if len(evs) > 0 {
		p = unsafe.Pointer(&evs[0])
	}
	for {
		n, _, e := syscall.RawSyscall6(unix.SYS_EPOLL_PWAIT, uintptr(epfd), uintptr(p), uintptr(len(evs)), 0, 0, 0)
		if e != unix.EINTR {
			return nowaitResult("epoll_wait", int(n), errno(e))
		}
	}
}

// pollNow is poll(fds, 0).
func pollNow(fds []unix.PollFd) (int, error) {
	var p unsafe.Pointer
	if len(fds) > 0 {
		p = unsafe.Pointer(&fds[0])
	}
	var ts unix.Timespec
	for {
		n, _, e := syscall.RawSyscall6(unix.SYS_PPOLL, uintptr(p), uintptr(len(fds)), uintptr(unsafe.Pointer(&ts)), 0, 0, 0)
		if e != unix.EINTR {
			return nowaitResult("poll", int(n), errno(e))
		}
	}
}

// selectNow is select(nfd, r, w, nil, 0) on copies of the sets rin and
// win, left in r and w: the ready fds.
func selectNow(nfd int, rin, win, r, w *unix.FdSet) (int, error) {
	var ts unix.Timespec
	for {
		*r, *w = *rin, *win
		n, _, e := syscall.RawSyscall6(unix.SYS_PSELECT6, uintptr(nfd), uintptr(unsafe.Pointer(r)), uintptr(unsafe.Pointer(w)), 0, uintptr(unsafe.Pointer(&ts)), 0)
		if e != unix.EINTR {
			return nowaitResult("select", int(n), errno(e))
		}
	}
}

// epollCtl is epoll_ctl(epfd, op, fd, ev).
func epollCtl(epfd, op, fd int, ev *unix.EpollEvent) error {
	_, _, e := syscall.RawSyscall6(unix.SYS_EPOLL_CTL, uintptr(epfd), uintptr(op), uintptr(fd), uintptr(unsafe.Pointer(ev)), 0, 0)
	return errno(e)
}

// errno is e as an error, nil for 0.
func errno(e unix.Errno) error {
	if e == 0 {
		return nil
	}
	return e
}
