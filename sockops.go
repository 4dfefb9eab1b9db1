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
// The fd is the caller's, so the loop cannot vouch for its mode. On Linux
// a socket is read and written with MSG_DONTWAIT, which does not block in
// either mode, as raw system calls (as the transports' on the sockets the
// loop opened): a socket left in blocking mode waits as a non-blocking one
// does. Another kind of fd, and any fd elsewhere, gets ordinary system
// calls, so a blocking one blocks the loop as it blocks asyncio's, and
// nothing else. In debug mode a blocking fd fails the future at once, as
// asyncio's debug mode raises ValueError.

// AcceptedConn is the result of SockAccept.
type AcceptedConn struct {
	Fd   int // non-blocking, close-on-exec
	Addr net.Addr
}

// SockRecv reads up to n bytes from fd; the result is a []byte, empty at
// end of stream.
func (l *Loop) SockRecv(fd, n int) *Future {
	return l.sockRecv("SockRecv", l.newSockOp(fd, false, make([]byte, n), tryRecv))
}

// SockRecvInto reads into buf; the result is the byte count (an int), 0
// at end of stream.
func (l *Loop) SockRecvInto(fd int, buf []byte) *Future {
	return l.sockRecv("SockRecvInto", l.newSockOp(fd, false, buf, tryRecvInto))
}

// SockSendAll writes all of data to fd; the result is nil.
func (l *Loop) SockSendAll(fd int, data []byte) *Future {
	return l.sockWait("SockSendAll", l.newSockOp(fd, true, data, trySendAll))
}

// SockAccept accepts a connection on the listening socket fd; the result
// is an AcceptedConn.
func (l *Loop) SockAccept(fd int) *Future {
	return l.sockWait("SockAccept", l.newSockOp(fd, false, nil, tryAccept))
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

// sockOp is one task-style socket operation and its future, in one
// allocation. What it tries is a function of the op, not a closure, and
// the op is its future's canceller, so an operation that completes at
// once allocates only the op, and one that waits adds its callback. A
// task's own op (Task.sockOp) is reused from one call to the next, its
// callback bound once.
type sockOp struct {
	f     Future
	fd    int
	write bool   // waits for writability, else readability
	buf   []byte // where to read; for SockSendAll, what is left to write
	n     int    // bytes read (tryRecvCount)
	try   func(o *sockOp) (v any, done bool, err error)
	cb    func() // o.retry, bound when the op first waits
}

// newSockOp is a pending operation on fd; it panics on a closed loop, as
// CreateFuture does.
func (l *Loop) newSockOp(fd int, write bool, buf []byte, try func(*sockOp) (any, bool, error)) *sockOp {
	if l.c.closed.Load() {
		panic(closedError("CreateFuture"))
	}
	return &sockOp{f: Future{loop: l}, fd: fd, write: write, buf: buf, try: try}
}

// sockWait completes o's future with its try's result, trying now and
// then each time its fd is ready (for writing if o.write) until the try
// reports done.
func (l *Loop) sockWait(name string, o *sockOp) *Future {
	if err := l.checkUserFd(name, o.fd); err != nil {
		o.f.SetException(err)
		return &o.f
	}
	if v, done, err := o.try(o); done {
		completeFuture(&o.f, v, err)
		return &o.f
	}
	return l.waitOp(o)
}

// sockRecv is sockWait for a read, which waits at once when the last
// task-style operation on its fd was a wait that ended (its registration
// is kept, core.kept): a request-response stream, whose next request
// comes after the answer just sent, where a first try would find nothing.
// The wait's Modify reports data already there as the next iteration
// begins.
func (l *Loop) sockRecv(name string, o *sockOp) *Future {
	if !l.c.kept(o.fd) || l.c.cfg.Debug {
		return l.sockWait(name, o)
	}
	return l.waitOp(o)
}

// waitOp completes o's future with its result, trying each time its fd
// is ready until it reports done. Cancelling the future stops the
// waiting.
func (l *Loop) waitOp(o *sockOp) *Future {
	if o.cb == nil {
		o.cb = o.retry
	}
	if err := l.c.addOnce(o.fd, o.cb, o.write); err != nil {
		o.f.SetException(err)
		return &o.f
	}
	o.f.onCancel = o
	return &o.f
}

// retry is the op's reader or writer. One that finds nothing to do
// arms its oneshot registration again.
func (o *sockOp) retry() {
	v, done, err := o.try(o)
	if !done {
		if err = o.f.loop.c.rearm(o.fd); err == nil {
			return
		}
		v, err = nil, fmt.Errorf("loopbench: %w", err)
	}
	o.remove()
	if !o.f.Done() {
		completeFuture(&o.f, v, err)
	}
}

// remove takes the op's reader or writer off its fd.
func (o *sockOp) remove() {
	if o.write {
		o.f.loop.RemoveWriter(o.fd)
	} else {
		o.f.loop.RemoveReader(o.fd)
	}
}

// Cancel stops the waiting and cancels the future. An op already done
// has nothing to stop: its fd's reader or writer now, if any, is another
// op's.
func (o *sockOp) Cancel(msg string) bool {
	if o.f.state != pending {
		return false
	}
	o.remove()
	return o.f.cancel(msg)
}

func tryRecv(o *sockOp) (any, bool, error) {
	m, err := sock.UserRecv(o.fd, o.buf)
	return o.buf[:m], !sock.IsAgain(err), err
}

// tryRecvCount reads into the op's buffer and keeps the count in the op,
// unboxed (the coroutine form's read).
func tryRecvCount(o *sockOp) (any, bool, error) {
	var err error
	o.n, err = sock.UserRecv(o.fd, o.buf)
	return nil, !sock.IsAgain(err), err
}

// tryRecvInto is tryRecvCount with the count as the result.
func tryRecvInto(o *sockOp) (any, bool, error) {
	_, done, err := tryRecvCount(o)
	return o.n, done, err
}

func trySendAll(o *sockOp) (any, bool, error) {
	for len(o.buf) > 0 {
		n, err := sock.UserSend(o.fd, o.buf)
		if err != nil {
			return nil, !sock.IsAgain(err), err
		}
		o.buf = o.buf[n:]
	}
	return nil, true, nil
}

func tryAccept(o *sockOp) (any, bool, error) {
	nfd, addr, err := sock.Accept(o.fd)
	return AcceptedConn{Fd: nfd, Addr: addr}, !sock.IsAgain(err), err
}

func connectResult(o *sockOp) (any, bool, error) {
	return nil, true, sock.ConnectResult(o.fd)
}
