package loopbench

import (
	"errors"
	"fmt"
)

// Semaphore is asyncio's Semaphore: a counter of permits; Acquire takes
// one, waiting while none is left, Release gives one back. It is fair:
// once tasks wait, a new Acquire queues behind them.
type Semaphore struct {
	value   int // asyncio's _value: permits neither taken nor promised
	bound   int // > 0 for a BoundedSemaphore
	waiters waitList
}

// ErrSemaphoreReleased is returned by Release of a BoundedSemaphore beyond
// its initial value (asyncio raises ValueError).
var ErrSemaphoreReleased = errors.New("loopbench: BoundedSemaphore released too many times")

// NewSemaphore returns a semaphore with value permits (value >= 0).
func NewSemaphore(value int) *Semaphore {
	if value < 0 {
		panic(fmt.Sprintf("loopbench: NewSemaphore(%d): the value must be >= 0", value))
	}
	return &Semaphore{value: value}
}

// NewBoundedSemaphore returns a semaphore whose Release fails once the
// permits would exceed value.
func NewBoundedSemaphore(value int) *Semaphore {
	s := NewSemaphore(value)
	s.bound = value
	return s
}

// Locked reports whether an Acquire would wait: no permit is left, or
// tasks wait (woken ones included), as asyncio's locked.
func (s *Semaphore) Locked() bool {
	return s.value <= 0 || s.waiters.woken > 0 || s.waiters.firstPending()
}

// Value returns the permits not taken, a permit promised to a woken
// waiter that has not run yet included (asyncio's _value leaves those
// out).
func (s *Semaphore) Value() int { return s.value + s.waiters.woken }

// Acquire takes a permit, waiting while none is left. A cancelled Acquire
// takes none and returns ErrCancelled.
//
// As asyncio's (3.13): a release wakes the first waiter and promises it
// the permit at once; a waiter leaving, with its permit or cancelled
// (then it gives back a permit promised to it), wakes as many of the
// next as there are permits left (3.11 and 3.12 wake one).
func (s *Semaphore) Acquire(t *Task) error {
	if !s.Locked() {
		s.value--
		return nil
	}
	woken, err := s.waiters.waitWoken(t)
	if err != nil && woken {
		s.value++
	}
	for s.value > 0 && s.wakeNext() {
	}
	return err
}

// wakeNext wakes the first waiter still pending, promising it a permit;
// false if none waits.
func (s *Semaphore) wakeNext() bool {
	if !s.waiters.wakeFirst() {
		return false
	}
	s.value--
	return true
}

// Release gives a permit back and wakes the first waiter. On a
// BoundedSemaphore, a Release beyond the initial value returns
// ErrSemaphoreReleased; as in asyncio, the permits promised to woken
// waiters are not counted.
func (s *Semaphore) Release() error {
	if s.bound > 0 && s.value >= s.bound {
		return ErrSemaphoreReleased
	}
	s.value++
	s.wakeNext()
	return nil
}

// ErrBrokenBarrier is returned by a Barrier's Wait once it is aborted.
var ErrBrokenBarrier = errors.New("loopbench: barrier is broken")

// Barrier is asyncio's Barrier: tasks wait until parties of them are
// waiting, then all go on; it is then ready for the next round.
type Barrier struct {
	parties int
	count   int // tasks waiting or leaving this round
	state   barrierState
	cond    *Condition
}

type barrierState int

const (
	filling barrierState = iota
	draining
	resetting
	broken
)

// NewBarrier returns a barrier for parties tasks (parties >= 1).
func NewBarrier(parties int) *Barrier {
	if parties < 1 {
		panic(fmt.Sprintf("loopbench: NewBarrier(%d): parties must be >= 1", parties))
	}
	return &Barrier{parties: parties, cond: NewCondition(nil)}
}

// Wait waits until parties tasks wait, and returns this task's index, 0
// to parties-1, in arrival order. It returns ErrBrokenBarrier when the
// barrier is aborted or reset while the task waits, and ErrCancelled when
// the task is cancelled; as with asyncio, a cancelled waiter leaves
// without breaking the barrier, which then waits for another party.
func (b *Barrier) Wait(t *Task) (int, error) {
	if err := b.cond.Acquire(t); err != nil {
		return 0, err
	}
	defer b.cond.Release()
	// Wait while the previous round drains or a reset completes.
	if err := b.cond.WaitFor(t, func() bool { return b.state != draining && b.state != resetting }); err != nil {
		return 0, err
	}
	if b.state == broken {
		return 0, ErrBrokenBarrier
	}
	index := b.count
	b.count++
	var err error
	if index+1 == b.parties {
		b.state = draining
		b.cond.NotifyAll()
	} else {
		err = b.cond.WaitFor(t, func() bool { return b.state != filling })
		if err == nil && b.state != draining {
			err = ErrBrokenBarrier
		}
	}
	b.count--
	if b.count == 0 {
		if b.state == draining || b.state == resetting {
			b.state = filling
		}
		b.cond.NotifyAll()
	}
	if err != nil {
		return 0, err
	}
	return index, nil
}

// Abort breaks the barrier: waiting and later Wait calls return
// ErrBrokenBarrier until Reset.
func (b *Barrier) Abort() {
	b.state = broken
	b.cond.waiters.wakeAll()
}

// Reset returns the barrier to its first state; tasks waiting get
// ErrBrokenBarrier.
func (b *Barrier) Reset() {
	if b.count > 0 {
		b.state = resetting
	} else {
		b.state = filling
	}
	b.cond.waiters.wakeAll()
}

// Parties returns how many tasks the barrier waits for.
func (b *Barrier) Parties() int { return b.parties }

// NWaiting returns how many tasks wait in the current round.
func (b *Barrier) NWaiting() int {
	if b.state == filling {
		return b.count
	}
	return 0
}

// Broken reports whether the barrier is broken.
func (b *Barrier) Broken() bool { return b.state == broken }
