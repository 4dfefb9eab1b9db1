package loopbench

import (
	"context"

	"github.com/loopbench/loopbench/internal/sys/sock"
)

// dialer holds what the loop's outgoing connections hold while they are
// being made: the sockets the loop opened that no transport owns yet (a
// connect in progress, or connected and not yet handed over), and the
// context of the host-name lookups. The loop's Close closes those
// sockets and cancels the lookups, so a connection still being made
// leaves no fd and no goroutine behind. Its methods are for the loop's
// goroutine.
type dialer struct {
	fds    map[int]struct{}
	ctx    context.Context // parent of every lookup's context, made on first use
	cancel context.CancelCauseFunc
}

// hold records fd, just opened, as the loop's until release or closeFd.
func (d *dialer) hold(fd int) {
	if d.fds == nil {
		d.fds = map[int]struct{}{}
	}
	d.fds[fd] = struct{}{}
}

// release hands fd over to the owner that closes it from now on.
func (d *dialer) release(fd int) { delete(d.fds, fd) }

// closeFd closes fd, which the loop holds.
func (d *dialer) closeFd(fd int) {
	delete(d.fds, fd)
	sock.Close(fd)
}

// lookupContext returns the context of one lookup and its cancel
// function; close cancels it too.
func (d *dialer) lookupContext() (context.Context, context.CancelCauseFunc) {
	if d.ctx == nil {
		d.ctx, d.cancel = context.WithCancelCause(context.Background())
	}
	return context.WithCancelCause(d.ctx)
}

// closePart closes the sockets held and cancels the lookups, at Close.
func (d *dialer) closePart() {
	for fd := range d.fds {
		sock.Close(fd)
	}
	d.fds = nil
	if d.cancel != nil {
		d.cancel(ErrClosed)
	}
}
