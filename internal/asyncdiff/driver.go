package asyncdiff

import (
	"errors"
	"time"

	"github.com/loopbench/loopbench"
	"github.com/loopbench/loopbench/selectors"
)

// Driver is a loop's clock and a wrapper of its selector that makes a
// schedule deterministic: when the loop would block in select (a timeout
// other than 0), the thread-safe calls armed meanwhile are made by
// another goroutine, which the select waits for, then the selector is
// polled; if nothing is ready, the clock moves on by the timeout, so the
// earliest timer is due exactly. replay.py does the same to asyncio.
type Driver struct {
	now   time.Duration
	inner selectors.Selector
	armed []func()
	loop  *loopbench.Loop
	req   chan []func()
	ack   chan struct{}
}

// errBlocked is a select that would block with nothing to wake it.
var errBlocked = errors.New("asyncdiff: the loop would block forever")

// NewDriver returns a driver for l, whose clock and selector the caller
// hands over to it (Now and Wrap); Close stops its goroutine.
func NewDriver(l *loopbench.Loop) *Driver {
	d := &Driver{loop: l, req: make(chan []func()), ack: make(chan struct{})}
	go d.thread()
	return d
}

// thread is the other thread: it makes the thread-safe calls it is given.
func (d *Driver) thread() {
	for fns := range d.req {
		for _, fn := range fns {
			d.loop.CallSoonThreadsafe(fn)
		}
		d.ack <- struct{}{}
	}
}

// Close stops the driver's goroutine.
func (d *Driver) Close() { close(d.req) }

// Now is the loop clock.
func (d *Driver) Now() time.Duration { return d.now }

// arm queues fn for a thread-safe call when the loop next waits.
func (d *Driver) arm(fn func()) { d.armed = append(d.armed, fn) }

// disarm drops the calls not made.
func (d *Driver) disarm() { d.armed = nil }

// Wrap wraps the loop's selector.
func (d *Driver) Wrap(s selectors.Selector) selectors.Selector {
	d.inner = s
	return driven{s, d}
}

// driven is the wrapped selector: Select is the driver's.
type driven struct {
	selectors.Selector
	d *Driver
}

func (s driven) Select(timeout time.Duration, buf []selectors.Event) ([]selectors.Event, error) {
	d := s.d
	if timeout != 0 && len(d.armed) > 0 {
		d.req <- d.armed
		<-d.ack
		d.armed = nil
	}
	evs, err := d.inner.Select(0, buf)
	switch {
	case err != nil || len(evs) > 0:
	case timeout < 0:
		err = errBlocked
	case timeout > 0:
		d.now += timeout
	}
	return evs, err
}
