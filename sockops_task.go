package loopbench

// The coroutine forms of the task-style socket calls. In asyncio,
// loop.sock_recv_into and loop.sock_sendall are coroutines: awaited where
// they are called, they make no future when the socket is ready, and
// sock_recv_into's result is the count itself. The package functions
// SockRecvInto and SockSendAll are those forms. Each takes the task that
// awaits it, as every call that suspends a task does, and awaits the
// operation in it. A task keeps one operation for them and reuses it from
// call to call, so a round trip allocates nothing. The Loop methods of
// the same names return a future instead, for Gather, WaitFor or another
// task to await; both forms behave alike otherwise.

// SockRecvInto reads into buf from fd for task t, suspending t until fd
// is readable: Loop.SockRecvInto awaited by t, without the future. It
// returns the byte count, 0 at end of stream. If t is cancelled while it
// waits, the read is withdrawn and the error wraps ErrCancelled.
func SockRecvInto(t *Task, fd int, buf []byte) (int, error) {
	o, err := t.sockOp(fd, false, buf, tryRecvCount)
	if err != nil {
		return 0, err
	}
	_, err = t.Await(t.fut.loop.sockRecv("SockRecvInto", o))
	n := o.n
	o.buf = nil
	if err != nil {
		return 0, err
	}
	return n, nil
}

// SockSendAll writes all of data to fd for task t, suspending t while fd
// is not writable: Loop.SockSendAll awaited by t, without the future. If
// t is cancelled while it waits, the rest is not written and the error
// wraps ErrCancelled.
func SockSendAll(t *Task, fd int, data []byte) error {
	o, err := t.sockOp(fd, true, data, trySendAll)
	if err != nil {
		return err
	}
	_, err = t.Await(t.fut.loop.sockWait("SockSendAll", o))
	o.buf = nil
	return err
}

// sockOp returns t's operation, set up for a new call on fd. Nothing else
// holds it, so once its future is done and its wakeup has run it can be
// reset; one that cannot (a cancelled wait whose wakeup is still due) is
// replaced. It fails, touching nothing, when t is not running its
// function, as Await would.
func (t *Task) sockOp(fd int, write bool, buf []byte, try func(*sockOp) (any, bool, error)) (*sockOp, error) {
	if !t.running {
		return nil, errNotInTask
	}
	o := t.op
	if o == nil || o.f.Reset() != nil {
		o = t.fut.loop.newSockOp(fd, write, buf, try)
		t.op = o
		return o, nil
	}
	o.fd, o.write, o.buf, o.n, o.try = fd, write, buf, 0, try
	o.f.onCancel = nil
	return o, nil
}
