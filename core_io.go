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
func (c *core) addIO(fd int, fn func(), write bool) error { return c.add(fd, fn, write, false) }

// addOnce installs fn as fd's reader (write false) or writer on a
// oneshot registration, for the task-style socket operations, which wait
// for one readiness at a time: when fn has run, the registration is
// disarmed, and removing fn leaves it in place, so the next operation
// re-arms it with one Modify (asyncio's add_reader and remove_reader cost
// a Register and an Unregister each time). An fd with another callback
// gets addIO's level-triggered registration instead.
func (c *core) addOnce(fd int, fn func(), write bool) error {
	other := fd >= 0 && fd < len(c.fds) && c.fds[fd].events() != 0
	return c.add(fd, fn, write, !other)
}

// add is addIO, or addOnce's oneshot registration when once is set.
func (c *core) add(fd int, fn func(), write, once bool) error {
	op := "AddReader"
	if write {
		op = "AddWriter"
	}
	if err := c.checkIO(op, fd); err != nil {
		return err
	}
	e := c.entry(fd)
	next := *e
	id := c.alloc(fn, flagIO)
	next.set(id, write)
	want := next.events()
	if once {
		want |= selectors.Oneshot
	}
	return c.install(op, fd, e, next, want, id, write)
}

// checkIO is the argument check of addIO and addOnce.
func (c *core) checkIO(op string, fd int) error {
	if c.closed.Load() {
		return closedError(op)
	}
	if fd < 0 || fd == c.ts.fd() {
		return fmt.Errorf("loopbench: %s: invalid fd %d", op, fd)
	}
	return nil
}

// set makes slot id the reader (write false) or writer.
func (e *fdEntry) set(id uint32, write bool) {
	if write {
		e.writer = id + 1
	} else {
		e.reader = id + 1
	}
}

// install moves fd's entry e to next, registered for want, and cancels
// the callback next replaced; on a selector error slot id is freed and e
// is left as it was.
func (c *core) install(op string, fd int, e *fdEntry, next fdEntry, want selectors.Events, id uint32, write bool) error {
	old := *e
	if err := c.watch(fd, old.reg, want); err != nil {
		c.release(id)
		return fmt.Errorf("loopbench: %s: %w", op, err)
	}
	next.reg = want
	*e = next
	if old.events() == 0 {
		c.watched++
	}
	if prev := old.reader; !write && prev != 0 {
		c.cancelSlot(prev - 1)
	}
	if prev := old.writer; write && prev != 0 {
		c.cancelSlot(prev - 1)
	}
	return nil
}

// removeIO removes the reader or writer of fd; true if there was one. A
// oneshot registration stays (addOnce).
func (c *core) removeIO(fd int, write bool) bool {
	if c.closed.Load() || fd < 0 || fd >= len(c.fds) {
		return false
	}
	e := &c.fds[fd]
	p := &e.reader
	if write {
		p = &e.writer
	}
	if *p == 0 {
		return false
	}
	c.cancelSlot(*p - 1)
	*p = 0
	want := e.events()
	if want == 0 {
		c.watched--
		if e.reg&selectors.Oneshot != 0 {
			return true
		}
	}
	c.watch(fd, e.reg, want) // a closed fd is already gone from the kernel
	e.reg = want
	return true
}

// rearm arms fd's oneshot registration again for its callback, whose run
// did not end its wait (a task-style operation that found nothing).
func (c *core) rearm(fd int) error {
	if fd < 0 || fd >= len(c.fds) {
		return nil
	}
	if e := c.fds[fd]; e.reg&selectors.Oneshot != 0 && e.events() != 0 {
		return c.sel.Modify(fd, e.reg)
	}
	return nil
}

// kept reports whether fd has a oneshot registration and no callback:
// the last task-style operation on it ended, and the next re-arms it.
func (c *core) kept(fd int) bool {
	return fd >= 0 && fd < len(c.fds) && c.fds[fd].reg&selectors.Oneshot != 0 && c.fds[fd].events() == 0
}

// watch moves fd's selector registration from events old to new. With
// the same events (a callback replaced, a oneshot re-armed) it modifies
// the registration all the same: an fd closed and reused without
// RemoveReader then has its new file watched, whatever the backend (see
// the selectors contract).
func (c *core) watch(fd int, old, new selectors.Events) error {
	switch {
	case old == 0:
		return c.sel.Register(fd, new)
	case new == 0:
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
