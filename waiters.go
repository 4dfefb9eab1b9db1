package loopbench

// waitList is a FIFO of waiter futures, the deque of futures asyncio's
// primitives keep. A waiter adds its future, awaits it, and removes it
// (woken or cancelled); a wake completes the first waiter that is still
// pending, so a cancelled waiter is skipped and never takes what it
// waited for, and no wake is lost on it. Finished futures are reset and
// reused, so a wait allocates nothing in steady state.
type waitList struct {
	fs   []*Future
	pool []*Future
}

// wait adds a waiter for t and suspends t until it is woken or cancelled.
func (w *waitList) wait(t *Task) error {
	var f *Future
	if n := len(w.pool); n > 0 {
		f = w.pool[n-1]
		w.pool[n-1] = nil
		w.pool = w.pool[:n-1]
	} else {
		f = t.loop.CreateFuture()
	}
	w.fs = append(w.fs, f)
	_, err := t.Await(f)
	w.remove(f)
	return err
}

// remove takes f out of the list and keeps it for reuse when it can be
// reset (its callbacks have all run).
func (w *waitList) remove(f *Future) {
	for i, g := range w.fs {
		if g == f {
			copy(w.fs[i:], w.fs[i+1:])
			w.fs[len(w.fs)-1] = nil
			w.fs = w.fs[:len(w.fs)-1]
			break
		}
	}
	if f.Reset() == nil && len(w.pool) < 16 {
		w.pool = append(w.pool, f)
	}
}

// wakeFirst completes the first waiter still pending; false if none.
func (w *waitList) wakeFirst() bool {
	for _, f := range w.fs {
		if !f.Done() {
			f.SetResult(nil)
			return true
		}
	}
	return false
}

// wakeUpTo wakes pending waiters, first in first, until n are woken and
// not yet resumed: one per item, slot or permit there is to take.
func (w *waitList) wakeUpTo(n int) {
	if len(w.fs) == 0 {
		return
	}
	woken := 0
	for _, f := range w.fs {
		if f.Done() && !f.Cancelled() {
			woken++
		}
	}
	for _, f := range w.fs {
		if woken >= n {
			return
		}
		if !f.Done() {
			f.SetResult(nil)
			woken++
		}
	}
}

// wakeAll completes every waiter still pending.
func (w *waitList) wakeAll() {
	for _, f := range w.fs {
		if !f.Done() {
			f.SetResult(nil)
		}
	}
}

// mustWait reports whether a newcomer, with available things to take,
// queues: when waiters are pending, or those woken take them all.
func (w *waitList) mustWait(available int) bool {
	if len(w.fs) == 0 {
		return available <= 0
	}
	pending, woken := w.counts()
	return pending > 0 || woken >= available
}

// counts returns the waiters still pending and those woken but not
// resumed yet.
func (w *waitList) counts() (pending, woken int) {
	for _, f := range w.fs {
		switch {
		case !f.Done():
			pending++
		case !f.Cancelled():
			woken++
		}
	}
	return pending, woken
}
