package loopbench

import (
	"fmt"
	"time"

	"github.com/loopbench/loopbench/selectors"
)

// WakeInvariant checks, between iterations, that no wake-up is owed: a
// waiter is left pending only while what it waits for is taken or
// promised to waiters woken already. The coordination suite's randomized
// run checks it after every iteration.
func WakeInvariant(q *Queue[int], s *Semaphore, m *Lock) error {
	check := func(what string, w *waitList, there int) error {
		pending, woken := w.counts()
		if pending > 0 && woken < there {
			return fmt.Errorf("%s: %d waiters pending, %d woken, %d to take: a lost wake-up", what, pending, woken, there)
		}
		if listed := w.firstPending(); woken != w.woken || (pending > 0) != listed {
			return fmt.Errorf("%s: the list counts %d woken and pending=%v; its waiters say %d woken, %d pending", what, w.woken, listed, woken, pending)
		}
		nils := 0
		for i := w.head; i < len(w.fs); i++ {
			f := w.fs[i]
			switch {
			case f == nil:
				nils++
			case f.waitIdx != i:
				return fmt.Errorf("%s: the waiter at %d says it is at %d", what, i, f.waitIdx)
			case i < w.next && !f.Done():
				return fmt.Errorf("%s: a waiter pending at %d, behind the cursor at %d", what, i, w.next)
			}
		}
		if dead := w.head + w.holes; nils != w.holes || (dead >= 32 && 2*dead >= len(w.fs)) {
			return fmt.Errorf("%s: %d entries, %d left behind, %d holes counted of %d", what, len(w.fs), dead, w.holes, nils)
		}
		return nil
	}
	free := 0
	if q.max > 0 {
		free = q.max - q.Len()
	}
	unlocked := 0
	if !m.locked {
		unlocked = 1
	}
	for _, err := range []error{
		check("queue Get", &q.getters, q.Len()),
		check("queue Put", &q.putters, free),
		check("semaphore", &s.waiters, s.value),
		check("lock", &m.waiters, unlocked),
	} {
		if err != nil {
			return err
		}
	}
	return nil
}

// DriveForTest gives l the clock now and wraps its selector with wrap:
// the differential check's driver (internal/conform/asyncdiff), under which time
// moves only when the loop would block.
func DriveForTest(l *Loop, now func() time.Duration, wrap func(selectors.Selector) selectors.Selector) {
	l.drive(now, wrap)
}
