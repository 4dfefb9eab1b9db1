//go:build linux

package selectors

import (
	"math/bits"
	"os"
	"sync/atomic"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// uringSel is the io_uring backend: asyncio's readiness contract on
// one-shot IORING_OP_POLL_ADD requests, one per registered fd.
//
// A poll that fires is reported and armed again in the next Select, so an
// fd that was not drained reports again (level-triggered): the kernel
// polls the file when the request is submitted and completes it at once
// if the file is still ready. Modify and Unregister remove the fd's poll
// with IORING_OP_POLL_REMOVE, again until the poll's own completion comes
// when the kernel answers that it was woken (uringRemoval). Each poll
// carries the fd and the registration's generation in its user_data, and
// Modify always takes a new generation, so completions of removed polls,
// of an earlier registration of a reused fd, or of the file an fd named
// before Modify, are dropped.
//
// Register, Modify and Unregister make no system call: what they ask for
// is queued, and Select writes the queue's requests into the ring and
// waits for completions in one io_uring_enter (GETEVENTS, EXT_ARG with a
// nanosecond timeout). A zero-timeout Select with nothing to submit reads
// the completion ring and makes no call at all.
//
// A poll completes in the task work of the thread that armed it, which
// the kernel runs when that thread next returns from a system call or is
// interrupted: a write made on the thread that runs Select is seen by the
// next zero-timeout Select at once, as epoll sees it, but when the
// goroutine moved to another thread since the poll was armed, that Select
// may see it one call later (a waiting Select sees it when it comes). A
// caller that needs epoll's order exactly keeps its goroutine on one
// thread (runtime.LockOSThread), as the differential test against
// asyncio does.
//
// The same task work wakes the arming thread when it sleeps. So when the
// caller says it was rescheduled (ThreadBound) and the next Select runs
// on another thread, that Select arms the polls in flight again from
// there, and the thread left behind (an idle runtime thread) is not
// woken once for each of their completions.
//
// The completion ring is kept larger than the requests in flight, so no
// completion overflows: when a Select's requests would not fit, the
// backend opens a larger ring, and arms every registration again there
// (closing the old ring cancels its polls). Completions the kernel held
// back anyway (IORING_FEAT_NODROP) come in with the next io_uring_enter.
type uringSel struct {
	table
	ring      *uringRing
	st        []uint8  // st[fd]: uringIdle, uringQueued or uringArmed
	arm       []int32  // fds to arm in the next Select
	rm        []uint64 // user_data of polls to remove in the next Select
	retry     []uint64 // of polls to remove again in each Select (see uringRemoval)
	gone      []uint64 // reap's scratch: of removed or replaced polls that ended
	inflight  uint32   // requests submitted (or pushed) whose completion is not reaped
	enters    uint64   // io_uring_enter calls made, for the tests
	rewaits   uint64   // of which waits again after an interrupted one
	confirms  uint64   // confirm's poll(2) calls, for the tests
	arg       uringGeteventsArg
	ts        kernelTimespec
	polled    []unix.PollFd        // confirm's scratch
	early     uint32               // the CQ's tail when the Select began
	tid       int                  // the thread of the last check (rehome), 0 before the first Select
	moved     bool                 // Rescheduled was called (or no Select yet): check the thread at the next Select
	rehomed   uint64               // polls armed again after the goroutine moved, for the tests
	retried   uint64               // removals sent again (uringRemoval), for the tests
	lastRetry time.Duration        // the clock when a waiting Select last sent them
	clock     func() time.Duration // monotonic; tests replace it
}

// The state of a registration's poll.
const (
	uringIdle   = iota // no poll: its arming failed (the fd was closed); Modify arms it
	uringQueued        // in s.arm, armed by the next Select
	uringArmed         // a poll is in flight
)

// uringFirstSQ is the SQ size a new selector starts with; the CQ is twice it.
const uringFirstSQ = 64

func newUring() (*uringSel, error) {
	if err := uringAvail(); err != nil {
		return nil, err
	}
	r, err := newRing(uringSetup, uringFirstSQ, 2*uringFirstSQ)
	if err != nil {
		return nil, err
	}
	return &uringSel{table: table{name: "uring"}, ring: r, moved: true, clock: uringClock}, nil
}

// Resolution is 1 ns: the timeout is a __kernel_timespec.
func (s *uringSel) Resolution() time.Duration { return time.Nanosecond }

// userData is what a poll of fd under generation gen carries; a removal
// carries its poll's, marked (uringRemoval).
func userData(fd int, gen uint32) uint64 { return uint64(gen)<<32 | uint64(uint32(fd)) }

// queue marks fd to be armed by the next Select.
func (s *uringSel) queue(fd int) {
	s.st[fd] = uringQueued
	s.arm = append(s.arm, int32(fd))
}

func (s *uringSel) Register(fd int, ev Events) error {
	if err := s.check("register", fd, ev, false); err != nil {
		return err
	}
	s.add(fd, ev)
	for len(s.st) < len(s.regs) {
		s.st = append(s.st, uringIdle)
	}
	s.queue(fd)
	return nil
}

// Modify removes fd's poll and arms a new one under a new generation, on
// the file fd names now.
func (s *uringSel) Modify(fd int, ev Events) error {
	if err := s.check("modify", fd, ev, true); err != nil {
		return err
	}
	s.set(fd, ev)
	s.renew(fd)
	return nil
}

// renew removes fd's poll in flight, if any, and queues a new one under
// a new generation, so that the old poll's completion is dropped.
func (s *uringSel) renew(fd int) {
	s.unarm(fd)
	s.regs[fd].gen = s.nextGen()
	if s.st[fd] != uringQueued {
		s.queue(fd)
	}
}

// Unregister removes fd's poll at once, not in the next Select: a poll
// request holds a reference to its file, and the caller may close the fd
// next, expecting the file (a listening socket, a connection) to be
// released as it is with epoll. The removal completes on the thread that
// armed the poll, in the return from this call when that is the caller's.
func (s *uringSel) Unregister(fd int) error {
	if err := s.check("unregister", fd, 0, true); err != nil {
		return err
	}
	s.unarm(fd)
	s.st[fd] = uringIdle
	s.drop(fd)
	if err := s.removeNow(false); err != nil {
		return s.errorf("unregister", fd, err)
	}
	return nil
}

func (s *uringSel) Select(timeout time.Duration, buf []Event) ([]Event, error) {
	if s.closed {
		return buf[:0], s.errorf("select", -1, ErrClosed)
	}
	s.early = atomic.LoadUint32(s.ring.cqTail)
	if s.moved {
		s.rehome()
	}
	again, timeout := s.paceRetries(timeout)
	if err := s.stage(again); err != nil {
		return buf[:0], s.errorf("select", -1, err)
	}
	var err error
	if timeout == 0 {
		err = s.submitNow()
	} else {
		_, err = retry("io_uring_enter", timeout, s.wait)
	}
	return s.reap(buf[:0]), err
}

// Rescheduled tells the backend that its caller's goroutine was
// rescheduled and may run on another thread now: the next Select checks.
func (s *uringSel) Rescheduled() { s.moved = true }

// rehome arms again, from this thread, the polls in flight when the
// goroutine has moved since they were armed. A poll completes in the task
// work of the thread that armed it, and that work wakes the thread if it
// sleeps: left alone, each completion would wake the idle runtime thread
// the goroutine left. Each poll is removed and armed anew under a new
// generation, as Modify does (renew).
func (s *uringSel) rehome() {
	s.moved = false
	t := unix.Gettid()
	old := s.tid
	s.tid = t
	if old == 0 || old == t {
		return
	}
	for fd, st := range s.st {
		if st == uringArmed {
			s.renew(fd)
			s.rehomed++
		}
	}
}

// stage writes the queued removals and polls into the SQ, opening a
// larger ring first when their completions might not fit in the CQ.
func (s *uringSel) stage(again bool) error {
	if len(s.arm) == 0 && len(s.rm) == 0 && (!again || len(s.retry) == 0) {
		return nil
	}
	if s.inflight+uint32(len(s.arm)+len(s.rm)+len(s.retry)) > s.ring.cqSize {
		if err := s.grow(); err != nil {
			return err
		}
	}
	s.pushRemovals(again)
	for _, fd := range s.arm {
		r, ok := s.lookup(int(fd))
		if !ok || s.st[fd] != uringQueued {
			continue // unregistered since, or queued twice
		}
		s.pushSQE(uringOpPollAdd, fd, 0, pollEvents32(epollMask(r.ev&(Read|Write))), userData(int(fd), r.gen))
		s.st[fd] = uringArmed
	}
	s.arm = s.arm[:0]
	s.ring.publish()
	return nil
}

// pushSQE pushes one request, first submitting what the SQ holds when it
// is full (only a batch larger than the largest SQ does that).
func (s *uringSel) pushSQE(op uint8, fd int32, addr uint64, events uint32, ud uint64) {
	for !s.ring.push(op, fd, addr, events, ud) {
		s.ring.publish()
		s.submitNow()
	}
	s.inflight++
}

// grow replaces the ring by one whose CQ holds a completion for every
// registration twice over, and queues every registration to be armed
// there: closing the old ring cancelled its polls.
func (s *uringSel) grow() error {
	sq := uint32(1) << bits.Len32(uint32(max(s.count, uringFirstSQ)-1))
	sq = min(sq, uringMaxEntries)
	if 2*sq <= s.ring.cqSize {
		return nil // as large as it gets: completions beyond wait in the kernel (NODROP)
	}
	r, err := newRing(uringSetup, sq, 2*sq)
	if err != nil {
		return err
	}
	s.ring.close()
	s.ring, s.inflight = r, 0
	s.early = 0 // the new ring's completions all come in this Select
	s.arm, s.rm, s.retry = s.arm[:0], s.rm[:0], s.retry[:0]
	for fd := range s.regs {
		s.st[fd] = uringIdle
		if s.regs[fd].gen != 0 {
			s.queue(fd)
		}
	}
	return nil
}

// submitNow submits what the SQ holds and takes the completions ready
// now, without waiting. With nothing to submit and no completion held
// back (by a full CQ, or in the thread's task work) it makes no call.
func (s *uringSel) submitNow() error {
	n := s.ring.unsubmitted()
	if n == 0 && !s.ring.heldBack() {
		return nil
	}
	for {
		s.enters++
		_, e := s.ring.enter(n, 0, uringEnterGetEvents, nil, true)
		switch e {
		case unix.EINTR:
			continue
		case 0, unix.EBUSY, unix.EAGAIN: // EBUSY: held-back completions first; the next Select submits the rest
			return nil
		}
		return os.NewSyscallError("io_uring_enter", e)
	}
}

// wait is one io_uring_enter that submits what the SQ holds and waits up
// to d (negative: forever) for a completion. When it submitted requests,
// the kernel reports neither an interruption nor the timeout: an empty CQ
// before d has passed then counts as EINTR, which retry repeats with the
// time that remains.
func (s *uringSel) wait(d time.Duration) (int, error) {
	var start time.Time
	s.arg.ts = 0
	if d >= 0 {
		s.ts = kernelTimespec{Sec: int64(d / time.Second), Nsec: int64(d % time.Second)}
		s.arg.ts = uint64(uintptr(unsafe.Pointer(&s.ts)))
		if d > 0 {
			start = time.Now()
		}
	}
	s.enters++
	_, e := s.ring.enter(s.ring.unsubmitted(), 1, uringEnterGetEvents|uringEnterExtArg, &s.arg, false)
	switch {
	case e == unix.ETIME || e == unix.EBUSY:
		return 0, nil
	case e == unix.EINTR:
		s.rewaits++
		return 0, e
	case e != 0:
		return 0, e
	case s.ready() || d == 0 || (d > 0 && time.Since(start) >= d):
		return 0, nil
	}
	s.rewaits++
	return 0, unix.EINTR
}

// ready reports whether the CQ holds completions.
func (s *uringSel) ready() bool {
	return atomic.LoadUint32(s.ring.cqTail) != atomic.LoadUint32(s.ring.cqHead)
}

// reap takes every completion in the CQ: a poll of a live registration
// is reported as the registered events it found ready and queued to be
// armed again (a Oneshot one is left idle for Modify); anything else is
// dropped. The events of completions that were in the CQ before the
// Select began are confirmed; the others came during its call, on its
// thread, with no code of the caller's run since.
func (s *uringSel) reap(buf []Event) []Event {
	r := s.ring
	head, tail := atomic.LoadUint32(r.cqHead), atomic.LoadUint32(r.cqTail)
	older := -1 // events of completions from before the Select: buf[:older]
	for ; head != tail; head++ {
		if head == s.early {
			older = len(buf)
		}
		c := r.cqes[head&r.cqMask]
		s.inflight--
		fd, gen := int(uint32(c.userData)), uint32(c.userData>>32)
		reg, ok := s.lookup(fd)
		if c.userData&uringRemoval != 0 || !ok || reg.gen != gen || s.st[fd] != uringArmed {
			s.ended(c.userData, c.res) // a removal, or a poll of a removed or modified registration
			continue
		}
		if c.res < 0 {
			// ECANCELED: the kernel cancelled it (the thread that
			// submitted it exited); arm it again. Any other error
			// (EBADF: closed without Unregister) leaves it idle
			// until Modify.
			s.st[fd] = uringIdle
			if c.res == -int32(unix.ECANCELED) {
				s.queue(fd)
			}
			continue
		}
		if reg.ev&Oneshot != 0 {
			s.st[fd] = uringIdle // reported once: Modify arms it again
		} else {
			s.queue(fd)
		}
		if got := pollReady(uint32(c.res)) & reg.ev; got != 0 {
			buf = append(buf, Event{Fd: fd, Events: got})
		}
	}
	atomic.StoreUint32(r.cqHead, head)
	s.settle()
	if older < 0 {
		older = len(buf) // all of them were
	}
	kept := s.confirm(buf[:older])
	return append(kept, buf[older:]...)
}

// confirm keeps of evs what their fds are still ready for. A poll
// completes when its fd becomes ready, and the fd may be drained before
// the Select that reaps it (a read made on the thread whose write
// completed it): epoll would not report it then, so it is not reported,
// and a Oneshot registration whose event is dropped is armed again. One
// zero-timeout poll(2) checks them all. A completion posted during the
// Select's own call needs no check: the task work that posts it runs on
// the thread that armed the poll before that thread's next system call
// returns, so a read on that thread that drained the fd posted it
// earlier.
func (s *uringSel) confirm(evs []Event) []Event {
	if len(evs) == 0 {
		return evs
	}
	s.polled = s.polled[:0]
	for _, e := range evs {
		s.polled = append(s.polled, unix.PollFd{Fd: int32(e.Fd), Events: int16(epollMask(e.Events))})
	}
	s.confirms++
	if _, err := pollNow(s.polled); err != nil {
		return evs // report what completed: a spurious event costs a read that finds nothing
	}
	kept := evs[:0]
	for i, e := range evs {
		if e.Events &= pollReady(uint32(uint16(s.polled[i].Revents))); e.Events != 0 {
			kept = append(kept, e)
		} else if s.regs[e.Fd].ev&Oneshot != 0 && s.st[e.Fd] == uringIdle {
			s.queue(e.Fd)
		}
	}
	return kept
}

// Close removes every poll before it closes the ring, for the reason
// Unregister gives: closing the ring cancels its requests too, but in the
// background.
func (s *uringSel) Close() error {
	if s.closed {
		return nil
	}
	s.closed = true
	for fd := range s.st {
		s.unarm(fd)
	}
	err := s.removeNow(true)
	if cerr := s.ring.close(); err == nil {
		err = cerr
	}
	return err
}
