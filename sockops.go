package loopbench

import (
	"net"

	"github.com/loopbench/loopbench/internal/sock"
)

// Task-style socket operations, asyncio's loop.sock_*: each tries the
// system call at once and, when the socket is not ready, waits for
// readiness with a reader or writer on the fd and tries again. Each
// returns a future a task awaits; cancelling the future removes the
// reader or writer. The fd must be non-blocking and must not have another
// reader (or writer) meanwhile: one operation per direction at a time.

// AcceptedConn is the result of SockAccept.
type AcceptedConn struct {
	Fd   int // non-blocking, close-on-exec
	Addr net.Addr
}

// SockRecv reads up to n bytes from fd; the result is a []byte, empty at
// end of stream.
func (l *Loop) SockRecv(fd, n int) *Future {
	buf := make([]byte, n)
	return l.sockWait(fd, false, func() (any, bool, error) {
		m, err := sock.Read(fd, buf)
		return buf[:m], !sock.IsAgain(err), err
	})
}

// SockRecvInto reads into buf; the result is the byte count (an int), 0
// at end of stream.
func (l *Loop) SockRecvInto(fd int, buf []byte) *Future {
	return l.sockWait(fd, false, func() (any, bool, error) {
		m, err := sock.Read(fd, buf)
		return m, !sock.IsAgain(err), err
	})
}

// SockSendAll writes all of data to fd; the result is nil.
func (l *Loop) SockSendAll(fd int, data []byte) *Future {
	return l.sockWait(fd, true, func() (any, bool, error) {
		for len(data) > 0 {
			n, err := sock.Write(fd, data)
			if err != nil {
				return nil, !sock.IsAgain(err), err
			}
			data = data[n:]
		}
		return nil, true, nil
	})
}

// SockAccept accepts a connection on the listening socket fd; the result
// is an AcceptedConn.
func (l *Loop) SockAccept(fd int) *Future {
	return l.sockWait(fd, false, func() (any, bool, error) {
		nfd, addr, err := sock.Accept(fd)
		return AcceptedConn{Fd: nfd, Addr: addr}, !sock.IsAgain(err), err
	})
}

// SockConnect connects the non-blocking socket fd to address (a literal
// "ip:port", or a path for network "unix"); the result is nil.
func (l *Loop) SockConnect(fd int, network, address string) *Future {
	a, err := sock.Resolve(network, address)
	if err != nil {
		f := l.CreateFuture()
		f.SetException(err)
		return f
	}
	return l.sockConnect(fd, a)
}

func (l *Loop) sockConnect(fd int, a sock.Addr) *Future {
	inProgress, err := sock.Connect(fd, a)
	if !inProgress {
		f := l.CreateFuture()
		if err != nil {
			f.SetException(err)
		} else {
			f.SetResult(nil)
		}
		return f
	}
	return l.sockWait(fd, true, func() (any, bool, error) {
		return nil, true, sock.ConnectResult(fd)
	})
}

// sockWait completes a future with op's result, calling op now and then
// each time fd is ready (for writing if write) until op reports done.
func (l *Loop) sockWait(fd int, write bool, op func() (v any, done bool, err error)) *Future {
	f := l.CreateFuture()
	finish := func(v any, err error) {
		if err != nil {
			f.SetException(err)
		} else {
			f.SetResult(v)
		}
	}
	if v, done, err := op(); done {
		finish(v, err)
		return f
	}
	remove := func() {
		if write {
			l.RemoveWriter(fd)
		} else {
			l.RemoveReader(fd)
		}
	}
	ready := func() {
		if v, done, err := op(); done {
			remove()
			if !f.Done() {
				finish(v, err)
			}
		}
	}
	var err error
	if write {
		err = l.AddWriter(fd, ready)
	} else {
		err = l.AddReader(fd, ready)
	}
	if err != nil {
		f.SetException(err)
		return f
	}
	f.onCancel = cancelFunc(func(msg string) bool {
		remove()
		return f.cancel(msg)
	})
	return f
}
