//go:build unix

// Package sock is the loop's socket layer: the few system calls the
// transports and the task-style socket operations need, on non-blocking,
// close-on-exec descriptors, with errors wrapped as *os.SyscallError. It
// is, with the selectors and the wakeup fd, the only code that makes
// system calls.
package sock

import (
	"fmt"
	"net"
	"net/netip"
	"os"

	"golang.org/x/sys/unix"
)

// Backlog is the listen backlog, and the most connections one readiness
// event accepts (asyncio's default of 100).
const Backlog = 100

// Addr is a resolved socket address.
type Addr struct {
	sa     unix.Sockaddr
	domain int
}

// Resolve parses a literal address ("127.0.0.1:8080", "[::1]:0", or a path
// for network unix). Host names are not looked up.
func Resolve(network, address string) (Addr, error) {
	switch network {
	case "unix":
		return Addr{&unix.SockaddrUnix{Name: address}, unix.AF_UNIX}, nil
	case "tcp", "tcp4", "tcp6", "udp", "udp4", "udp6":
		ap, err := netip.ParseAddrPort(address)
		if err != nil {
			return Addr{}, fmt.Errorf("%s address %q: want a literal IP and port: %w", network, address, err)
		}
		if ap.Addr().Is4() || ap.Addr().Is4In6() {
			return Addr{&unix.SockaddrInet4{Port: int(ap.Port()), Addr: ap.Addr().Unmap().As4()}, unix.AF_INET}, nil
		}
		return Addr{&unix.SockaddrInet6{Port: int(ap.Port()), Addr: ap.Addr().As16()}, unix.AF_INET6}, nil
	}
	return Addr{}, fmt.Errorf("unsupported network %q (tcp, tcp4, tcp6, udp, udp4, udp6, unix)", network)
}

// AddrFrom converts a *net.UDPAddr or *net.TCPAddr to an Addr.
func AddrFrom(a net.Addr) (Addr, error) {
	var ap netip.AddrPort
	switch a := a.(type) {
	case *net.UDPAddr:
		ap = a.AddrPort()
	case *net.TCPAddr:
		ap = a.AddrPort()
	default:
		return Addr{}, fmt.Errorf("address %v (%T): want a *net.UDPAddr", a, a)
	}
	if ip := ap.Addr().Unmap(); ip.Is4() {
		return Addr{&unix.SockaddrInet4{Port: int(ap.Port()), Addr: ip.As4()}, unix.AF_INET}, nil
	}
	return Addr{&unix.SockaddrInet6{Port: int(ap.Port()), Addr: ap.Addr().As16()}, unix.AF_INET6}, nil
}

// String formats a as "ip:port" (or its path).
func (a Addr) String() string {
	if na := toAddr(a.sa); na != nil {
		return na.String()
	}
	return "?"
}

// Domain returns the address family of a.
func (a Addr) Domain() int { return a.domain }

// Socket returns a non-blocking, close-on-exec stream socket for a.
func (a Addr) Socket() (int, error) { return Socket(a.domain) }

// Socket returns a non-blocking, close-on-exec stream socket of domain.
func Socket(domain int) (int, error) { return socket(domain, unix.SOCK_STREAM) }

// Listen returns a listening non-blocking socket on address, with
// SO_REUSEADDR for TCP, and the address it is bound to.
func Listen(network, address string) (int, net.Addr, error) {
	a, err := Resolve(network, address)
	if err != nil {
		return -1, nil, err
	}
	fd, err := a.Socket()
	if err != nil {
		return -1, nil, err
	}
	sa := a.sa
	if a.domain != unix.AF_UNIX {
		if err := unix.SetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_REUSEADDR, 1); err != nil {
			unix.Close(fd)
			return -1, nil, os.NewSyscallError("setsockopt", err)
		}
	}
	if err := unix.Bind(fd, sa); err != nil {
		unix.Close(fd)
		return -1, nil, os.NewSyscallError("bind", err)
	}
	if err := unix.Listen(fd, Backlog); err != nil {
		unix.Close(fd)
		return -1, nil, os.NewSyscallError("listen", err)
	}
	return fd, LocalAddr(fd), nil
}

// NoDelay sets TCP_NODELAY on a TCP socket (and does nothing on others).
func NoDelay(fd int) {
	unix.SetsockoptInt(fd, unix.IPPROTO_TCP, unix.TCP_NODELAY, 1)
}

// Connect starts a non-blocking connect of fd to a. It returns true when
// the connection is in progress: wait until fd is writable, then ask
// ConnectResult. TCP connections get TCP_NODELAY.
func Connect(fd int, a Addr) (inProgress bool, err error) {
	if a.domain != unix.AF_UNIX {
		NoDelay(fd)
	}
	switch err := unix.Connect(fd, a.sa); err {
	case nil:
		return false, nil
	case unix.EINPROGRESS, unix.EINTR, unix.EALREADY:
		return true, nil
	default:
		return false, os.NewSyscallError("connect", err)
	}
}

// ConnectResult returns the outcome of a connect that was in progress.
func ConnectResult(fd int) error {
	v, err := unix.GetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_ERROR)
	if err != nil {
		return os.NewSyscallError("getsockopt", err)
	}
	if v != 0 {
		return os.NewSyscallError("connect", unix.Errno(v))
	}
	return nil
}

// ShutdownWrite half-closes fd (WriteEOF).
func ShutdownWrite(fd int) error {
	return os.NewSyscallError("shutdown", unix.Shutdown(fd, unix.SHUT_WR))
}

// UserRead is Read for a descriptor the caller supplied, which the loop
// cannot vouch is non-blocking: an ordinary system call, which tells the
// scheduler, so that a blocking fd blocks only the calling goroutine. A
// raw system call blocked in the kernel would keep its goroutine from
// stopping for the garbage collector, and so stop every goroutine at the
// next collection.
func UserRead(fd int, p []byte) (int, error) { return sysIO(unix.Read, "read", fd, p) }

// UserWrite is Write for a descriptor the caller supplied (see UserRead).
func UserWrite(fd int, p []byte) (int, error) { return sysIO(unix.Write, "write", fd, p) }

func sysIO(call func(int, []byte) (int, error), name string, fd int, p []byte) (int, error) {
	for {
		n, err := call(fd, p)
		switch err {
		case nil:
			return n, nil
		case unix.EINTR:
			continue
		case unix.EAGAIN:
			return 0, unix.EAGAIN
		}
		return 0, os.NewSyscallError(name, err)
	}
}

// Blocking reports whether fd is in blocking mode (O_NONBLOCK clear).
func Blocking(fd int) (bool, error) {
	fl, err := unix.FcntlInt(uintptr(fd), unix.F_GETFL, 0)
	if err != nil {
		return false, os.NewSyscallError("fcntl", err)
	}
	return fl&unix.O_NONBLOCK == 0, nil
}

// Close closes fd.
func Close(fd int) error { return os.NewSyscallError("close", unix.Close(fd)) }

// StopListening shuts the listening socket fd down for reading, which on
// Linux takes it out of the listening state at once, whoever else holds
// its file (an io_uring poll in flight does until it completes): a
// connection dialled after it is refused. Elsewhere it does nothing the
// Close that follows does not; its error is not reported.
func StopListening(fd int) { unix.Shutdown(fd, unix.SHUT_RD) }

// IsAgain reports whether err is the "try again" of Read, Write, Accept.
func IsAgain(err error) bool { return err == unix.EAGAIN }

// LocalAddr returns the address fd is bound to.
func LocalAddr(fd int) net.Addr {
	sa, err := unix.Getsockname(fd)
	if err != nil {
		return nil
	}
	return toAddr(sa)
}

// PeerAddr returns the address fd is connected to.
func PeerAddr(fd int) net.Addr {
	sa, err := unix.Getpeername(fd)
	if err != nil {
		return nil
	}
	return toAddr(sa)
}

// toAddr converts a socket address to a *net.TCPAddr (or *net.UnixAddr).
func toAddr(sa unix.Sockaddr) net.Addr {
	switch a := sa.(type) {
	case *unix.SockaddrInet4:
		return &net.TCPAddr{IP: net.IP(a.Addr[:]).To16(), Port: a.Port}
	case *unix.SockaddrInet6:
		return &net.TCPAddr{IP: net.IP(a.Addr[:]), Port: a.Port}
	case *unix.SockaddrUnix:
		return &net.UnixAddr{Name: a.Name, Net: "unix"}
	}
	return nil
}

// OpenFds returns how many fds the process has open (0 if unknown), from
// /proc/self/fd, or /dev/fd where there is no /proc (macOS, the BSDs).
func OpenFds() int {
	for _, dir := range []string{"/proc/self/fd", "/dev/fd"} {
		if ents, err := os.ReadDir(dir); err == nil {
			return len(ents) - 1 // the directory being read
		}
	}
	return 0
}

// FdLimit returns the soft limit on open files.
func FdLimit() int {
	var r unix.Rlimit
	if err := unix.Getrlimit(unix.RLIMIT_NOFILE, &r); err != nil {
		return 0
	}
	return int(r.Cur)
}
