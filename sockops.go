package loopbench

import (
	"fmt"
	"net"

	"github.com/loopbench/loopbench/internal/sys/sock"
)

// Task-style socket operations, asyncio's loop.sock_*: each tries the
// system call at once and, when the socket is not ready, waits for
// readiness with a reader or writer on the fd and tries again. Each
// returns a future a task awaits; cancelling the future removes the
// reader or writer. The fd must be non-blocking and must not have another
// reader (or writer) meanwhile: one operation per direction at a time.
//
// The fd is the caller's, so the loop cannot vouch for its mode: the
// system calls are ordinary ones (not the raw calls the transports make on
// the sockets the loop opened), so a blocking fd blocks the loop as it
// blocks asyncio's, and nothing else. In debug mode a blocking fd fails
// the future at once, as asyncio's debug mode raises ValueError.

// AcceptedConn is the result of SockAccept.
type AcceptedConn struct {
	Fd   int // non-blocking, close-on-exec
	Addr net.Addr
}

// SockRecv reads up to n bytes from fd; the result is a []byte, empty at
// end of stream.
func (l *Loop) SockRecv(fd, n int) *Future {
	return l.sockRecv("SockRecv", fd, make([]byte, n), tryRecv)
}

// SockRecvInto reads into buf; the result is the byte count (an int), 0
// at end of stream.
func (l *Loop) SockRecvInto(fd int, buf []byte) *Future {
	return l.sockRecv("SockRecvInto", fd, buf, tryRecvInto)
}

// SockSendAll writes all of data to fd; the result is nil.
func (l *Loop) SockSendAll(fd int, data []byte) *Future {
	return l.sockWait("SockSendAll", fd, true, data, trySendAll)
}

// SockAccept accepts a connection on the listening socket fd; the result
// is an AcceptedConn.
func (l *Loop) SockAccept(fd int) *Future {
	return l.sockWait("SockAccept", fd, false, nil, tryAccept)
}

// SockConnect connects the non-blocking socket fd to address (a literal
// "ip:port", or a path for network "unix"); the result is nil.
func (l *Loop) SockConnect(fd int, network, address string) *Future {
	a, err := sock.Resolve(network, address)
	if err == nil {
		err = l.checkUserFd("SockConnect", fd)
	}
	if err != nil {
		f := l.CreateFuture()
		f.SetException(err)
		return f
	}
	return l.sockConnect(fd, a)
}

// checkUserFd is asyncio's debug-mode check of a caller's socket: an
// error if fd is in blocking mode. Outside debug mode it costs nothing.
func (l *Loop) checkUserFd(op string, fd int) error {
	if !l.c.cfg.Debug {
		return nil
	}
	blocking, err := sock.Blocking(fd)
	if err == nil && blocking {
		err = fmt.Errorf("fd %d is in blocking mode: the socket must be non-blocking", fd)
	}
	if err != nil {
		return fmt.Errorf("loopbench: %s: %w", op, err)
	}
	return nil
}

// sockConnect connects fd to a. A connect in progress is waited for
// until fd is writable, as asyncio's sock_connect does: the socket's
// error before that is 0 whether or not the connect will succeed.
func (l *Loop) sockConnect(fd int, a sock.Addr) *Future {
	o := l.newSockOp(fd, true, nil, connectResult)
	inProgress, err := sock.Connect(fd, a)
	if !inProgress {
		completeFuture(&o.f, nil, err)
		return &o.f
	}
	return l.waitOp(o)
}

// completeFuture completes the pending future f with v, or with err if
// that is not nil (as connectionError wraps it).
func completeFuture(f *Future, v any, err error) {
	if err != nil {
		f.SetException(connectionError(err))
	} else {
		f.SetResult(v)
	}
}
