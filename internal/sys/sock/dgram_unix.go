//go:build unix

package sock

import (
	"net"
	"os"

	"golang.org/x/sys/unix"
)

// DgramSocket returns a non-blocking, close-on-exec datagram socket of
// domain.
func DgramSocket(domain int) (int, error) { return socket(domain, unix.SOCK_DGRAM) }

// Bind binds fd to a.
func Bind(fd int, a Addr) error {
	if err := unix.Bind(fd, a.sa); err != nil {
		return os.NewSyscallError("bind", err)
	}
	return nil
}

// ConnectDgram sets the default destination of datagram socket fd; it
// does not block.
func ConnectDgram(fd int, a Addr) error {
	if err := unix.Connect(fd, a.sa); err != nil {
		return os.NewSyscallError("connect", err)
	}
	return nil
}

// RecvFrom reads one datagram into p and returns its size and sender as a
// *net.UDPAddr; unix.EAGAIN (unwrapped) when none is waiting.
func RecvFrom(fd int, p []byte) (int, net.Addr, error) {
	for {
		n, sa, err := unix.Recvfrom(fd, p, 0)
		switch err {
		case nil:
			return n, udpAddr(sa), nil
		case unix.EINTR:
			continue
		case unix.EAGAIN:
			return 0, nil, unix.EAGAIN
		}
		return 0, nil, os.NewSyscallError("recvfrom", err)
	}
}

// SendTo sends one datagram to a, or to the connected peer when to is
// nil; unix.EAGAIN (unwrapped) when the socket buffer is full.
func SendTo(fd int, p []byte, to *Addr) error {
	for {
		var err error
		if to == nil {
			_, err = unix.Write(fd, p)
		} else {
			err = unix.Sendto(fd, p, 0, to.sa)
		}
		switch err {
		case nil:
			return nil
		case unix.EINTR:
			continue
		case unix.EAGAIN:
			return unix.EAGAIN
		}
		return os.NewSyscallError("sendto", err)
	}
}

// UDPLocalAddr and UDPPeerAddr are the datagram socket's addresses as
// *net.UDPAddr.
func UDPLocalAddr(fd int) net.Addr {
	sa, err := unix.Getsockname(fd)
	if err != nil {
		return nil
	}
	return udpAddr(sa)
}

// UDPPeerAddr returns the address a datagram socket is connected to.
func UDPPeerAddr(fd int) net.Addr {
	sa, err := unix.Getpeername(fd)
	if err != nil {
		return nil
	}
	return udpAddr(sa)
}

func udpAddr(sa unix.Sockaddr) net.Addr {
	switch a := sa.(type) {
	case *unix.SockaddrInet4:
		return &net.UDPAddr{IP: net.IP(a.Addr[:]).To16(), Port: a.Port}
	case *unix.SockaddrInet6:
		return &net.UDPAddr{IP: net.IP(a.Addr[:]), Port: a.Port}
	}
	return nil
}
