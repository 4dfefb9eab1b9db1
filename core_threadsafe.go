package loopbench

// The loop's side of the thread-safe queue (threadsafe.go):
// CallSoonThreadsafe's records in, slots for the iteration out.

// callSoonThreadsafe queues fn, and panics with ErrClosed on a closed
// loop.
func (c *core) callSoonThreadsafe(fn func()) Handle {
	h, ok := c.tryCallSoonThreadsafe(fn)
	if !ok {
		panic(closedError("CallSoonThreadsafe"))
	}
	return h
}

// tryCallSoonThreadsafe queues fn unless the loop is closed.
func (c *core) tryCallSoonThreadsafe(fn func()) (Handle, bool) {
	t := &c.ts
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.closed {
		return Handle{}, false
	}
	var idx uint32
	if k := len(t.freeRec); k > 0 {
		idx = t.freeRec[k-1]
		t.freeRec = t.freeRec[:k-1]
	} else {
		idx = uint32(len(t.recs))
		t.recs = append(t.recs, tsRecord{gen: 1})
	}
	r := &t.recs[idx]
	r.fn, r.live = fn, true
	t.queue = append(t.queue, idx)
	if !t.flag.Swap(true) {
		t.wake.signal()
	}
	return Handle{c: c, id: idx | tsBit, gen: r.gen}, true
}

// takeThreadsafe gives the loop a slot id for every record queued since
// the last take, or nil when the flag says nothing was queued.
func (c *core) takeThreadsafe() []uint32 {
	if !c.ts.flag.Load() {
		return nil
	}
	return c.drainThreadsafe()
}

func (c *core) drainThreadsafe() []uint32 {
	t := &c.ts
	t.flag.Store(false)
	t.mu.Lock()
	q := t.queue
	t.queue = t.spare[:0]
	t.mu.Unlock()
	ids := t.ids[:0]
	for _, rec := range q {
		id := c.alloc(nil, flagTS)
		for int(id) >= len(t.slotRec) {
			t.slotRec = append(t.slotRec, 0)
		}
		t.slotRec[id] = rec
		ids = append(ids, id)
	}
	t.spare, t.ids = q, ids
	return ids
}
