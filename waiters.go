package loopbench

// waitList is a FIFO of waiter futures, the deque of futures asyncio's
// primitives keep. A waiter adds its future, awaits it, and removes it
// (woken or cancelled); a wake completes the first waiter that is still
// pending, so a cancelled waiter is skipped and never takes what it
// waited for, and no wake is lost on it. Finished futures are reset and
// reused, so a wait allocates nothing in steady state.
//
// Every operation is O(1) amortized, however many wait: a waiter's
// future holds its index, so leaving the list is a store; the list counts
// the waiters it woke; and since wakes go first in first, a cursor past
// which every pending waiter lies moves only forward. The entries left
// behind are dropped when they make up half the list.
type waitList struct {
	fs    []*Future // fs[head:] in arrival order; nil where a waiter has left
	head  int       // index of the first entry held
	holes int       // nils in fs[head:]
	next  int       // fs[head:next] holds only done futures and nils
	woken int       // entries woken (result set) and not yet removed
	pool  []*Future
}

// wait adds a waiter for t and suspends t until it is woken or cancelled.
func (w *waitList) wait(t *Task) error {
	_, err := w.waitWoken(t)
	return err
}

// waitWoken is wait, and reports whether the waiter was woken, also when
// the task was cancelled after its wake-up (and the error is
// ErrCancelled): then the wake-up is the caller's to pass on.
func (w *waitList) waitWoken(t *Task) (woken bool, err error) {
	var f *Future
	if n := len(w.pool); n > 0 {
		f = w.pool[n-1]
		w.pool[n-1] = nil
		w.pool = w.pool[:n-1]
	} else {
		f = t.fut.loop.CreateFuture()
	}
	f.waitIdx = len(w.fs)
	w.fs = append(w.fs, f)
	_, err = t.Await(f)
	woken = f.Done() && !f.Cancelled()
	w.remove(f)
	return woken, err
}

// remove takes f out of the list and keeps it for reuse when it can be
// reset (its callbacks have all run).
func (w *waitList) remove(f *Future) {
	w.fs[f.waitIdx] = nil
	w.holes++
	if f.Done() && !f.Cancelled() {
		w.woken--
	}
	for w.head < len(w.fs) && w.fs[w.head] == nil {
		w.head++
		w.holes--
	}
	for len(w.fs) > w.head && w.fs[len(w.fs)-1] == nil {
		w.fs = w.fs[:len(w.fs)-1]
		w.holes--
	}
	if dead := w.head + w.holes; w.head == len(w.fs) || (dead >= 32 && 2*dead >= len(w.fs)) {
		w.compact()
	}
	w.next = min(max(w.next, w.head), len(w.fs))
	if f.Reset() == nil && len(w.pool) < 16 {
		w.pool = append(w.pool, f)
	}
}

// compact moves the entries held to the front, in order, and renumbers
// them; the cursor keeps its place among them.
func (w *waitList) compact() {
	n, next := 0, 0
	for i := w.head; i < len(w.fs); i++ {
		if i == w.next {
			next = n
		}
		if f := w.fs[i]; f != nil {
			f.waitIdx = n
			w.fs[n] = f
			n++
		}
	}
	if w.next >= len(w.fs) {
		next = n
	}
	clear(w.fs[n:])
	w.fs, w.head, w.holes, w.next = w.fs[:n], 0, 0, next
}

// firstPending moves the cursor to the first waiter still pending and
// reports whether there is one.
func (w *waitList) firstPending() bool {
	for w.next < len(w.fs) && (w.fs[w.next] == nil || w.fs[w.next].Done()) {
		w.next++
	}
	return w.next < len(w.fs)
}

// wakeFirst completes the first waiter still pending; false if none.
func (w *waitList) wakeFirst() bool {
	if !w.firstPending() {
		return false
	}
	w.fs[w.next].SetResult(nil)
	w.next++
	w.woken++
	return true
}

// wakeHead completes the first waiter if it is still pending, asyncio's
// Lock._wake_up_first: a first waiter already woken or cancelled (and not
// yet resumed) takes the wake-up with it, the woken one by running, the
// cancelled one by passing it on as it leaves; so one wake-up is
// outstanding at a time and the order is kept. False if none was woken.
func (w *waitList) wakeHead() bool {
	if w.head == len(w.fs) || w.fs[w.head].Done() {
		return false
	}
	// A pending first entry is where the cursor stands: nothing before it
	// is held, and the cursor passes only done entries.
	return w.wakeFirst()
}

// wakeAll completes every waiter still pending.
func (w *waitList) wakeAll() {
	for w.wakeFirst() {
	}
}

// mustWait reports whether a newcomer, with available things to take,
// queues: when waiters are pending, or those woken take them all.
func (w *waitList) mustWait(available int) bool {
	if len(w.fs) == 0 {
		return available <= 0
	}
	return w.firstPending() || w.woken >= available
}

// counts returns the waiters still pending and those woken but not
// resumed yet, found by looking at every waiter (the invariant checks
// hold the list's own bookkeeping to it).
func (w *waitList) counts() (pending, woken int) {
	for _, f := range w.fs[w.head:] {
		switch {
		case f == nil:
		case !f.Done():
			pending++
		case !f.Cancelled():
			woken++
		}
	}
	return pending, woken
}
