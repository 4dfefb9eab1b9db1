package asyncdiff

import (
	"time"

	"github.com/loopbench/loopbench"
	"github.com/loopbench/loopbench/internal/measure/vclock"
	"github.com/loopbench/loopbench/selectors"
)

// Driver is a loop's clock and a wrapper of its selector that makes a
// schedule deterministic: a virtual clock (internal/measure/vclock), which moves
// only when the loop would block, by the timeout, so the earliest timer
// is due exactly; and when the loop would block in select (a timeout
// other than 0), the thread-safe calls armed meanwhile are made first by
// another goroutine, which the select waits for. replay.py does the same
// to asyncio.
type Driver struct {
	clock vclock.Clock
	armed []func()
	loop  *loopbench.Loop
	req   chan []func()
	ack   chan struct{}
}

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
func (d *Driver) Now() time.Duration { return d.clock.Now() }

// arm queues fn for a thread-safe call when the loop next waits.
func (d *Driver) arm(fn func()) { d.armed = append(d.armed, fn) }

// disarm drops the calls not made.
func (d *Driver) disarm() { d.armed = nil }

// Wrap wraps the loop's selector.
func (d *Driver) Wrap(s selectors.Selector) selectors.Selector {
	return driven{d.clock.Wrap(s), d}
}

// driven is the wrapped selector: Select makes the armed calls, then
// selects under the virtual clock.
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
	return s.Selector.Select(timeout, buf)
}
