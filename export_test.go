package loopbench

import "fmt"

// WakeInvariant checks, between iterations, that no wake-up is owed: a
// waiter is left pending only while what it waits for is taken or
// promised to waiters woken already. The coordination suite's randomized
// run checks it after every iteration.
func WakeInvariant(q *Queue[int], s *Semaphore, m *Lock) error {
	check := func(what string, w *waitList, there int) error {
		if pending, woken := w.counts(); pending > 0 && woken < there {
			return fmt.Errorf("%s: %d waiters pending, %d woken, %d to take: a lost wake-up", what, pending, woken, there)
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
