package loopbench

import "errors"

// The coordination primitives (Lock, Event, Condition, Semaphore,
// BoundedSemaphore, Barrier, Queue) are asyncio's: bound to one loop and
// single-threaded, with no mutex; their methods are for the loop's
// goroutine, and the waiting ones take the waiting task. Waiters are woken
// first in, first out; a waiter that is cancelled never takes the lock, the
// permit or the item, and the wake-up passes to the next.

// ErrNotAcquired is returned by Release of a Lock that is not held, and by
// a Condition's Wait and Notify without its lock.
var ErrNotAcquired = errors.New("loopbench: lock is not acquired")

// Lock is asyncio's Lock: a mutual exclusion between tasks. It is fair:
// once tasks wait, a new Acquire queues behind them.
type Lock struct {
	locked  bool
	waiters waitList
}

// NewLock returns an unlocked Lock.
func NewLock() *Lock { return &Lock{} }

// Acquire takes the lock, waiting while another task holds it. A
// cancelled Acquire does not take it and returns ErrCancelled.
//
// Waiters take the lock first come, first served, cancellations
// included, as with asyncio's Lock: a wake-up goes only to the first
// waiter, and only when it is still pending; a first waiter that was
// woken takes the lock when it runs, and one that was cancelled wakes the
// next as it leaves. So at most one wake-up is outstanding, and no woken
// waiter finds the lock taken and queues again behind later ones.
func (m *Lock) Acquire(t *Task) error {
	if !m.locked && !m.waiters.mustWait(1) {
		m.locked = true
		return nil
	}
	for {
		if err := m.waiters.wait(t); err != nil {
			if !m.locked {
				m.waiters.wakeHead() // a wake-up for us goes to the next
			}
			return err
		}
		if !m.locked { // always, with one wake-up outstanding
			m.locked = true
			return nil
		}
	}
}

// Release releases the lock and wakes the first waiter unless it is
// woken or cancelled already; ErrNotAcquired if it is not held.
func (m *Lock) Release() error {
	if !m.locked {
		return ErrNotAcquired
	}
	m.locked = false
	m.waiters.wakeHead()
	return nil
}

// Locked reports whether the lock is held.
func (m *Lock) Locked() bool { return m.locked }

// Event is asyncio's Event: tasks wait until it is set.
type Event struct {
	set     bool
	waiters waitList
}

// NewEvent returns an Event that is not set.
func NewEvent() *Event { return &Event{} }

// Wait waits until the event is set (at once if it is).
func (e *Event) Wait(t *Task) error {
	if e.set {
		return nil
	}
	return e.waiters.wait(t)
}

// Set sets the event and wakes every waiter.
func (e *Event) Set() {
	if !e.set {
		e.set = true
		e.waiters.wakeAll()
	}
}

// Clear unsets the event.
func (e *Event) Clear() { e.set = false }

// IsSet reports whether the event is set.
func (e *Event) IsSet() bool { return e.set }

// Condition is asyncio's Condition: tasks wait, holding its lock, until
// notified.
type Condition struct {
	lock    *Lock
	waiters waitList
}

// NewCondition returns a Condition on lock, or on a new Lock if nil.
func NewCondition(lock *Lock) *Condition {
	if lock == nil {
		lock = NewLock()
	}
	return &Condition{lock: lock}
}

// Acquire takes the condition's lock.
func (c *Condition) Acquire(t *Task) error { return c.lock.Acquire(t) }

// Release releases the condition's lock.
func (c *Condition) Release() error { return c.lock.Release() }

// Locked reports whether the condition's lock is held.
func (c *Condition) Locked() bool { return c.lock.Locked() }

// Wait releases the lock, waits until notified, and takes the lock again
// before it returns, even when cancelled (then it returns ErrCancelled,
// and passes a notification it may have had on to the next waiter). It
// returns ErrNotAcquired if the lock is not held. As with any condition
// variable, a wake-up does not promise the state waited for: use WaitFor.
func (c *Condition) Wait(t *Task) error {
	if !c.lock.locked {
		return ErrNotAcquired
	}
	c.lock.Release()
	err := c.waiters.wait(t)
	for {
		if aerr := c.lock.Acquire(t); aerr == nil {
			break
		} else if err == nil {
			err = aerr // reacquire anyway, report the cancellation
		}
	}
	if err != nil {
		// The task may have been notified before it was cancelled: pass
		// the notification on (a spurious wake-up at worst).
		c.Notify(1)
	}
	return err
}

// WaitFor waits until pred returns true, checking it first and after
// each notification.
func (c *Condition) WaitFor(t *Task, pred func() bool) error {
	for !pred() {
		if err := c.Wait(t); err != nil {
			return err
		}
	}
	return nil
}

// Notify wakes up to n waiters; ErrNotAcquired if the lock is not held.
func (c *Condition) Notify(n int) error {
	if !c.lock.locked {
		return ErrNotAcquired
	}
	for ; n > 0 && c.waiters.wakeFirst(); n-- {
	}
	return nil
}

// NotifyAll wakes every waiter; ErrNotAcquired if the lock is not held.
func (c *Condition) NotifyAll() error {
	if !c.lock.locked {
		return ErrNotAcquired
	}
	c.waiters.wakeAll()
	return nil
}
