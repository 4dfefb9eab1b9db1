//go:build linux

package sock

import (
	"net"
	"os"
	"unsafe"

	"golang.org/x/sys/unix"
)

// socket returns a non-blocking, close-on-exec socket of domain and typ,
// both flags set atomically by socket(2).
func socket(domain, typ int) (int, error) {
	fd, err := unix.Socket(domain, typ|unix.SOCK_NONBLOCK|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return -1, os.NewSyscallError("socket", err)
	}
	return fd, nil
}

// Accept accepts one connection from the listening socket fd, non-blocking
// and close-on-exec; TCP connections get TCP_NODELAY, as asyncio sets.
// It returns unix.EAGAIN (unwrapped) when none is pending.
func Accept(fd int) (int, net.Addr, error) {
	nfd, sa, err := unix.Accept4(fd, unix.SOCK_NONBLOCK|unix.SOCK_CLOEXEC)
	if err != nil {
		if err == unix.EAGAIN || err == unix.EINTR || err == unix.ECONNABORTED {
			return -1, nil, unix.EAGAIN
		}
		return -1, nil, os.NewSyscallError("accept4", err)
	}
	NoDelay(nfd)
	return nfd, toAddr(sa), nil
}

// Read reads from the non-blocking fd; it returns unix.EAGAIN (unwrapped)
// when nothing is available, and n == 0, err == nil at end of stream.
//
// Read and Write use raw system calls, without telling the scheduler: on
// a non-blocking socket they never block, so the hand-off the scheduler
// prepares for a blocking call would be pure overhead.
func Read(fd int, p []byte) (int, error) { return rawIO(unix.SYS_READ, "read", fd, p) }

// Write writes to the non-blocking fd; it returns how much was written and
// unix.EAGAIN (unwrapped) when the socket buffer is full.
func Write(fd int, p []byte) (int, error) { return rawIO(unix.SYS_WRITE, "write", fd, p) }

func rawIO(trap uintptr, name string, fd int, p []byte) (int, error) {
	var ptr unsafe.Pointer
	if len(p) > 0 {
		ptr = unsafe.Pointer(&p[0])
	}
	for {
		n, _, e := unix.RawSyscall(trap, uintptr(fd), uintptr(ptr), uintptr(len(p)))
		switch e {
		case 0:
			return int(n), nil
		case unix.EINTR:
			continue
		case unix.EAGAIN:
			return 0, unix.EAGAIN
		}
		return 0, os.NewSyscallError(name, e)
	}
}

// Socketpair returns a connected pair of non-blocking, close-on-exec
// stream sockets.
func Socketpair() (a, b int, err error) {
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_NONBLOCK|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return -1, -1, os.NewSyscallError("socketpair", err)
	}
	return fds[0], fds[1], nil
}
