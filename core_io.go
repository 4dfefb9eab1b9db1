package loopbench

import (
	"fmt"

	"github.com/loopbench/loopbench/selectors"
)

// --- I/O --------------------------------------------------------------------

func (c *core) entry(fd int) *fdEntry {
	for fd >= len(c.fds) {
		c.fds = append(c.fds, fdEntry{})
	}
	return &c.fds[fd]
}

// addIO installs fn as the reader (write false) or writer of fd, replacing
// and cancelling the previous one; reader and writer share one selector
// registration.
func (c *core) addIO(fd int, fn func(), write bool) error {
	op := map[bool]string{false: "AddReader", true: "AddWriter"}[write]
	if c.closed.Load() {
		return closedError(op)
	}
	if fd < 0 || fd == c.ts.fd() {
		return fmt.Errorf("loopbench: %s: invalid fd %d", op, fd)
	}
	e := c.entry(fd)
	old, next := *e, *e
	id := c.alloc(fn, flagIO)
	if write {
		next.writer = id + 1
	} else {
		next.reader = id + 1
	}
	if err := c.watch(fd, old.events(), next.events()); err != nil {
		c.release(id)
		return fmt.Errorf("loopbench: %s: %w", op, err)
	}
	*e = next
	if prev := old.reader; !write && prev != 0 {
		c.cancelSlot(prev - 1)
	}
	if prev := old.writer; write && prev != 0 {
		c.cancelSlot(prev - 1)
	}
	return nil
}

// removeIO removes the reader or writer of fd; true if there was one.
func (c *core) removeIO(fd int, write bool) bool {
	if c.closed.Load() || fd < 0 || fd >= len(c.fds) {
		return false
	}
	e := &c.fds[fd]
	old := *e
	p := &e.reader
	if write {
		p = &e.writer
	}
	if *p == 0 {
		return false
	}
	c.cancelSlot(*p - 1)
	*p = 0
	c.watch(fd, old.events(), e.events()) // a closed fd is already gone from the kernel
	return true
}

// watch moves fd's selector registration from events old to new. With
// the same events (a callback replaced) it modifies the registration all
// the same: an fd closed and reused without RemoveReader then has its new
// file watched, whatever the backend (see the selectors contract).
func (c *core) watch(fd int, old, new selectors.Events) error {
	switch {
	case old == 0:
		err := c.sel.Register(fd, new)
		if err == nil {
			c.watched++
		}
		return err
	case new == 0:
		c.watched--
		return c.sel.Unregister(fd)
	}
	return c.sel.Modify(fd, new)
}

// ioReady returns the slots to queue for a selector event (step 3), or
// ids >= tsBit for none. A cancelled handle is removed instead of queued.
func (c *core) ioReady(ev selectors.Event) (r, w uint32) {
	r, w = tsBit, tsBit
	if ev.Fd == c.ts.fd() {
		c.ts.drainWakeup()
		return
	}
	if ev.Fd >= len(c.fds) {
		return
	}
	e := c.fds[ev.Fd]
	if ev.Events&selectors.Read != 0 && e.reader != 0 {
		r = c.readyIO(ev.Fd, e.reader-1, false)
	}
	if ev.Events&selectors.Write != 0 && e.writer != 0 {
		w = c.readyIO(ev.Fd, e.writer-1, true)
	}
	return
}

// readyIO returns slot id, the reader (write false) or writer of fd, to
// queue, or tsBit for none. The common case, a live callback not queued
// yet, inlines into ioReady.
func (c *core) readyIO(fd int, id uint32, write bool) uint32 {
	if s := &c.slots[id]; s.flags&(flagCancelled|flagQueued) == 0 {
		s.flags |= flagQueued
		return id
	}
	return c.notReadyIO(fd, id, write)
}

// notReadyIO is readyIO's other cases: a cancelled callback is removed
// from the selector instead, a queued one is not queued twice.
func (c *core) notReadyIO(fd int, id uint32, write bool) uint32 {
	if c.slots[id].flags&flagCancelled != 0 {
		c.removeIO(fd, write)
	}
	return tsBit
}
