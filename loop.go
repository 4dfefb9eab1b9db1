package loopbench

import (
	"log/slog"
	"time"
)

// Loop is an event loop. Create one with New; see the package doc for the
// iteration, ownership and error conventions.
type Loop struct {
	c *core
	// Exactly one of these is set: the loop type with the configured ready
	// queue compiled in.
	rb *ringbufferLoop
	dq *dequeLoop
}

// Config returns the loop's configuration with defaults filled in.
func (l *Loop) Config() Config { return l.c.cfg }

// Never is no deadline on the loop clock: given to TimeoutScope.Reschedule,
// it removes the deadline.
const Never = time.Duration(1<<63 - 1)

// Time returns the loop's monotonic clock: the time since New.
func (l *Loop) Time() time.Duration { return l.c.time() }

// CallSoon schedules fn for the next iteration, after every callback
// already scheduled. O(1); with a prebuilt fn it allocates nothing.
//
// fn goes straight into the concrete ready queue, on its inlined fast
// path, and the handle is its position there: positions never repeat, so
// a handle needs no free list or generation and never aliases a later
// callback. A closed loop's queue has no room, so the closed check is in
// pushSoon, off the fast path.
func (l *Loop) CallSoon(fn func()) Handle {
	if fn == nil {
		panic("loopbench: CallSoon(nil)")
	}
	var pos uint64
	if rb := l.rb; rb != nil {
		p, ok := rb.ready.TryPush(fn)
		if !ok {
			p = rb.pushSoon(fn)
		}
		pos = p
	} else {
		p, ok := l.dq.ready.TryPush(fn)
		if !ok {
			p = l.dq.pushSoon(fn)
		}
		pos = p
	}
	id, gen := soonID(pos)
	return Handle{c: l.c, id: id, gen: gen}
}

// CallLater schedules fn to run once d has passed on the loop clock. A
// negative or zero d runs it on the next iteration, in deadline order. A
// deadline past the clock's range (d near math.MaxInt64, or Never) is the
// last instant it has: the timer never fires.
func (l *Loop) CallLater(d time.Duration, fn func()) TimerHandle {
	return l.c.callAt("CallLater", addClock(l.c.time(), d), fn)
}

// addClock returns now+d, saturated at the largest time rather than
// wrapping around to the past.
func addClock(now, d time.Duration) time.Duration {
	if d > 0 && now > Never-d {
		return Never
	}
	return now + d
}

// CallAt schedules fn to run at loop time when (see Time).
func (l *Loop) CallAt(when time.Duration, fn func()) TimerHandle {
	return l.c.callAt("CallAt", when, fn)
}

// CallSoonThreadsafe schedules fn from any goroutine and wakes the loop if
// it is blocked. Calls from one goroutine run in the order made. It panics
// on a closed loop; a goroutine that may race with Close uses
// TryCallSoonThreadsafe.
func (l *Loop) CallSoonThreadsafe(fn func()) Handle { return l.c.callSoonThreadsafe(fn) }

// TryCallSoonThreadsafe is CallSoonThreadsafe returning an error wrapping
// ErrClosed, instead of panicking, when the loop is closed: for a
// goroutine that cannot know whether Close came first (checking IsClosed
// before the call would race with it).
func (l *Loop) TryCallSoonThreadsafe(fn func()) (Handle, error) {
	h, ok := l.c.tryCallSoonThreadsafe(fn)
	if !ok {
		return Handle{}, closedError("TryCallSoonThreadsafe")
	}
	return h, nil
}

// AddReader calls fn on every iteration in which fd is readable, until
// RemoveReader. It replaces, and cancels, a reader already on fd.
func (l *Loop) AddReader(fd int, fn func()) error { return l.c.addIO(fd, fn, false) }

// RemoveReader stops watching fd for reading; true only if a reader was
// removed.
func (l *Loop) RemoveReader(fd int) bool { return l.c.removeIO(fd, false) }

// AddWriter calls fn on every iteration in which fd is writable, until
// RemoveWriter. It replaces, and cancels, a writer already on fd.
func (l *Loop) AddWriter(fd int, fn func()) error { return l.c.addIO(fd, fn, true) }

// RemoveWriter stops watching fd for writing; true only if a writer was
// removed.
func (l *Loop) RemoveWriter(fd int) bool { return l.c.removeIO(fd, true) }

// RunForever runs iterations until Stop. It returns ErrRunning if this loop
// (or another loop on this goroutine) is running, ErrClosed after Close,
// and a selector error if the selector fails.
func (l *Loop) RunForever() error {
	if l.rb != nil {
		return l.rb.runForever()
	}
	return l.dq.runForever()
}

// Stop makes the loop stop after the current iteration; called before
// RunForever, the next run does exactly one iteration, without blocking.
func (l *Loop) Stop() { l.c.stopping = true }

// Close releases the loop's selector and wakeup fd and drops every pending
// callback. It stops the unfinished tasks, kills and reaps the children,
// closes the sockets of the transports, servers and datagram endpoints
// still open and of the connections still being made, and abandons the
// host-name lookups running, so that no fd and no goroutine of the loop's
// is left (a RunInExecutor job still running ends on its own, its result
// dropped). It is an error while the loop runs; a second Close is a
// no-op.
func (l *Loop) Close() error {
	if l.rb != nil {
		return l.rb.close()
	}
	return l.dq.close()
}

// IsRunning reports whether the loop is running. Safe from any goroutine.
func (l *Loop) IsRunning() bool { return l.c.running.Load() }

// IsClosed reports whether Close was called. Safe from any goroutine.
func (l *Loop) IsClosed() bool { return l.c.closed.Load() }

// SetExceptionHandler sets the function called with errors nobody else can
// receive, such as a panic in a callback; nil restores the default, which
// logs. A panic in the handler is logged, not propagated.
func (l *Loop) SetExceptionHandler(h func(ExceptionContext)) { l.c.setExceptionHandler(h) }

// SetLogger sets where the default exception handler (at level Error)
// and debug mode's slow-callback warnings (Warn) write; nil restores the
// default, slog.Default().
func (l *Loop) SetLogger(lg *slog.Logger) {
	if lg == nil {
		lg = slog.Default()
	}
	l.c.logger = lg
}
