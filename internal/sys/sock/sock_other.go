//go:build unix && !linux

package sock

import (
	"net"
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// socket returns a non-blocking, close-on-exec socket of domain and typ.
// Without SOCK_CLOEXEC the flag is set under syscall.ForkLock, so that no
// child started meanwhile inherits the descriptor.
func socket(domain, typ int) (int, error) {
	syscall.ForkLock.RLock()
	fd, err := unix.Socket(domain, typ, 0)
	if err == nil {
		unix.CloseOnExec(fd)
	}
	syscall.ForkLock.RUnlock()
	if err != nil {
		return -1, os.NewSyscallError("socket", err)
	}
	return fd, nonblock(fd)
}

func nonblock(fd int) error {
	if err := unix.SetNonblock(fd, true); err != nil {
		unix.Close(fd)
		return os.NewSyscallError("fcntl", err)
	}
	return nil
}

// Accept accepts one connection from the listening socket fd, non-blocking
// and close-on-exec; TCP connections get TCP_NODELAY, as asyncio sets.
// It returns unix.EAGAIN (unwrapped) when none is pending.
func Accept(fd int) (int, net.Addr, error) {
	syscall.ForkLock.RLock()
	nfd, sa, err := unix.Accept(fd)
	if err == nil {
		unix.CloseOnExec(nfd)
	}
	syscall.ForkLock.RUnlock()
	if err != nil {
		if err == unix.EAGAIN || err == unix.EINTR || err == unix.ECONNABORTED {
			return -1, nil, unix.EAGAIN
		}
		return -1, nil, os.NewSyscallError("accept", err)
	}
	if err := nonblock(nfd); err != nil {
		return -1, nil, err
	}
	NoDelay(nfd)
	return nfd, toAddr(sa), nil
}

// Read reads from the non-blocking fd; it returns unix.EAGAIN (unwrapped)
// when nothing is available, and n == 0, err == nil at end of stream.
func Read(fd int, p []byte) (int, error) { return UserRead(fd, p) }

// Write writes to the non-blocking fd; it returns how much was written and
// unix.EAGAIN (unwrapped) when the socket buffer is full.
func Write(fd int, p []byte) (int, error) { return UserWrite(fd, p) }

// UserRecv is UserRead here: the raw form is Linux's (sock_linux.go).
func UserRecv(fd int, p []byte) (int, error) { return UserRead(fd, p) }

// UserSend is UserWrite here.
func UserSend(fd int, p []byte) (int, error) { return UserWrite(fd, p) }

// Socketpair returns a connected pair of non-blocking, close-on-exec
// stream sockets.
func Socketpair() (a, b int, err error) {
	syscall.ForkLock.RLock()
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM, 0)
	if err == nil {
		unix.CloseOnExec(fds[0])
		unix.CloseOnExec(fds[1])
	}
	syscall.ForkLock.RUnlock()
	if err != nil {
		return -1, -1, os.NewSyscallError("socketpair", err)
	}
	if err := nonblock(fds[0]); err != nil {
		unix.Close(fds[1])
		return -1, -1, err
	}
	if err := nonblock(fds[1]); err != nil {
		unix.Close(fds[0])
		return -1, -1, err
	}
	return fds[0], fds[1], nil
}
