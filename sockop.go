package loopbench

import (
	"fmt"

	"github.com/loopbench/loopbench/internal/sys/sock"
)

// sockOp is one task-style socket operation and its future, in one
// allocation. What it tries is a function of the op, not a closure, and
// the op is its future's canceller, so an operation that completes at
// once allocates only the op, and one that waits adds its callback.
type sockOp struct {
	f     Future
	fd    int
	write bool   // waits for writability, else readability
	buf   []byte // where to read; for SockSendAll, what is left to write
	try   func(o *sockOp) (v any, done bool, err error)
}

// newSockOp is a pending operation on fd; it panics on a closed loop, as
// CreateFuture does.
func (l *Loop) newSockOp(fd int, write bool, buf []byte, try func(*sockOp) (any, bool, error)) *sockOp {
	if l.c.closed.Load() {
		panic(closedError("CreateFuture"))
	}
	return &sockOp{f: Future{loop: l}, fd: fd, write: write, buf: buf, try: try}
}

// sockWait completes a future with try's result, trying now and then
// each time fd is ready (for writing if write) until try reports done.
func (l *Loop) sockWait(name string, fd int, write bool, buf []byte, try func(*sockOp) (any, bool, error)) *Future {
	o := l.newSockOp(fd, write, buf, try)
	if err := l.checkUserFd(name, fd); err != nil {
		o.f.SetException(err)
		return &o.f
	}
	if v, done, err := try(o); done {
		completeFuture(&o.f, v, err)
		return &o.f
	}
	return l.waitOp(o)
}

// sockRecv is sockWait for a read, which waits at once when the last
// task-style operation on fd was a wait that ended (its registration is
// kept, core.kept): a request-response stream, whose next request comes
// after the answer just sent, where a first try would find nothing. The
// wait's Modify reports data already there as the next iteration begins.
func (l *Loop) sockRecv(name string, fd int, buf []byte, try func(*sockOp) (any, bool, error)) *Future {
	if !l.c.kept(fd) || l.c.cfg.Debug {
		return l.sockWait(name, fd, false, buf, try)
	}
	return l.waitOp(l.newSockOp(fd, false, buf, try))
}

// waitOp completes o's future with its result, trying each time its fd
// is ready until it reports done. Cancelling the future stops the
// waiting.
func (l *Loop) waitOp(o *sockOp) *Future {
	if err := l.c.addOnce(o.fd, o.retry, o.write); err != nil {
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

// Cancel stops the waiting and cancels the future.
func (o *sockOp) Cancel(msg string) bool {
	o.remove()
	return o.f.cancel(msg)
}

func tryRecv(o *sockOp) (any, bool, error) {
	m, err := sock.UserRead(o.fd, o.buf)
	return o.buf[:m], !sock.IsAgain(err), err
}

func tryRecvInto(o *sockOp) (any, bool, error) {
	m, err := sock.UserRead(o.fd, o.buf)
	return m, !sock.IsAgain(err), err
}

func trySendAll(o *sockOp) (any, bool, error) {
	for len(o.buf) > 0 {
		n, err := sock.UserWrite(o.fd, o.buf)
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
