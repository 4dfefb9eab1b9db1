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
func Read(fd int, p []byte) (int, error) { return rawIO(unix.SYS_READ, "read", fd, p, 0) }

// Write writes to the non-blocking fd; it returns how much was written and
// unix.EAGAIN (unwrapped) when the socket buffer is full.
func Write(fd int, p []byte) (int, error) { return rawIO(unix.SYS_WRITE, "write", fd, p, 0) }

// UserRecv is UserRead for a caller's descriptor that may be a socket in
// blocking mode: recv with MSG_DONTWAIT, which does not block whatever
// the socket's mode, so it is a raw system call as Read is. A descriptor
// that is not a socket is read with UserRead, after one failed call.
func UserRecv(fd int, p []byte) (int, error) {
	n, err := rawIO(unix.SYS_RECVFROM, "recvfrom", fd, p, unix.MSG_DONTWAIT)
	if err == unix.ENOTSOCK {
		return UserRead(fd, p)
	}
	return n, err
}

// UserSend is UserWrite for a caller's descriptor, as UserRecv is
// UserRead: send with MSG_DONTWAIT (and MSG_NOSIGNAL: a closed peer is an
// EPIPE error, never a signal).
func UserSend(fd int, p []byte) (int, error) {
	n, err := rawIO(unix.SYS_SENDTO, "sendto", fd, p, unix.MSG_DONTWAIT|unix.MSG_NOSIGNAL)
	if err == unix.ENOTSOCK {
		return UserWrite(fd, p)
	}
	return n, err
}

// rawIO is the system call trap (read, write, recvfrom or sendto, with
// flags and no address) on fd and p, retried on EINTR. It returns EAGAIN
// and ENOTSOCK unwrapped, other errors as *os.SyscallError.
func rawIO(trap uintptr, name string, fd int, p []byte, flags int) (int, error) {
	var ptr unsafe.Pointer
	if len(p) > 0 {
		ptr = unsafe.Pointer(&p[0])
	}
	for {
		n, _, e := unix.RawSyscall6(trap, uintptr(fd), uintptr(ptr), uintptr(len(p)), uintptr(flags), 0, 0)
		switch e {
		case 0:
			return int(n), nil
		case unix.EINTR:
			continue
		case unix.EAGAIN, unix.ENOTSOCK:
			return 0, e
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
