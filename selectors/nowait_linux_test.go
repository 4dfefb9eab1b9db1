//go:build linux

package selectors

import (
	"errors"
	"os"
	"testing"

	"golang.org/x/sys/unix"
)

// TestNowaitErrors checks that the raw zero-timeout polls report a failing
// call as the ordinary path does: an *os.SyscallError naming the call,
// with the errno inside.
func TestNowaitErrors(t *testing.T) {
	var p [2]int
	if err := unix.Pipe2(p[:], unix.O_CLOEXEC); err != nil {
		t.Fatal(err)
	}
	unix.Close(p[1])
	bad := p[0]
	unix.Close(bad) // a closed fd: EBADF from every call below

	check := func(name string, n int, err error) {
		t.Helper()
		var se *os.SyscallError
		if n != 0 || !errors.As(err, &se) || se.Syscall != name || !errors.Is(err, unix.EBADF) {
			t.Errorf("%s: got %d, %v; want 0 and an *os.SyscallError %q wrapping EBADF", name, n, err, name)
		}
	}
	n, err := epollWaitNow(bad, make([]unix.EpollEvent, 1))
	check("epoll_wait", n, err)
	var in, r, w unix.FdSet
	in.Set(bad)
	n, err = selectNow(bad+1, &in, &unix.FdSet{}, &r, &w)
	check("select", n, err)
}

// TestNowaitReady checks the raw zero-timeout polls on a ready fd and an
// idle one: the counts, and what poll and select leave in their outputs.
func TestNowaitReady(t *testing.T) {
	var p [2]int
	if err := unix.Pipe2(p[:], unix.O_CLOEXEC|unix.O_NONBLOCK); err != nil {
		t.Fatal(err)
	}
	defer unix.Close(p[0])
	defer unix.Close(p[1])
	fds := []unix.PollFd{{Fd: int32(p[0]), Events: unix.POLLIN}, {Fd: int32(p[1]), Events: unix.POLLOUT}}
	if n, err := pollNow(fds); n != 1 || err != nil || fds[0].Revents != 0 || fds[1].Revents != unix.POLLOUT {
		t.Fatalf("poll: %d, %v, revents %#x %#x; want 1, the write end writable", n, err, fds[0].Revents, fds[1].Revents)
	}
	var rin, win, r, w unix.FdSet
	rin.Set(p[0])
	win.Set(p[1])
	n, err := selectNow(max(p[0], p[1])+1, &rin, &win, &r, &w)
	if n != 1 || err != nil || r.IsSet(p[0]) || !w.IsSet(p[1]) || !rin.IsSet(p[0]) {
		t.Fatalf("select: %d, %v, read end ready %v, write end ready %v; want 1, the write end only, the input sets kept", n, err, r.IsSet(p[0]), w.IsSet(p[1]))
	}
	ep, err := unix.EpollCreate1(unix.EPOLL_CLOEXEC)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(ep)
	if err := unix.EpollCtl(ep, unix.EPOLL_CTL_ADD, p[0], &unix.EpollEvent{Events: unix.EPOLLIN, Fd: int32(p[0])}); err != nil {
		t.Fatal(err)
	}
	evs := make([]unix.EpollEvent, 4)
	if n, err := epollWaitNow(ep, evs); n != 0 || err != nil {
		t.Fatalf("epoll_wait on an empty pipe: %d, %v; want 0", n, err)
	}
	if _, err := unix.Write(p[1], []byte("x")); err != nil {
		t.Fatal(err)
	}
	if n, err := epollWaitNow(ep, evs); n != 1 || err != nil || evs[0].Fd != int32(p[0]) {
		t.Fatalf("epoll_wait on a pipe with a byte: %d, %v, fd %d; want 1 and fd %d", n, err, evs[0].Fd, p[0])
	}
}
