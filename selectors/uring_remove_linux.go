//go:build linux

package selectors

import (
	"slices"
	"time"

	"golang.org/x/sys/unix"
)

// A removal (IORING_OP_POLL_REMOVE) carries the user_data of the poll it
// removes, marked by uringRemoval in the fd's half (no fd has that bit),
// so that its completion names the poll.
//
// A removal the kernel answers with EALREADY found its poll woken, with
// the task work that completes it pending on the thread that armed it.
// That work polls the file again when the removal's attempt counted as a
// second wakeup, and when the file is no longer ready (the caller read it
// meanwhile, on another thread) the kernel arms the poll again, silently:
// it stays in flight, holding a reference to its file, and a connection
// the caller then closes is never released. So a poll answered EALREADY
// is removed again in each Select until its own completion comes. Every
// poll posts one completion when it ends (its events, or ECANCELED when
// a removal took it), and none comes before the kernel has found it
// woken, so the retries end.
//
// A waiting Select sends them at most once every uringRetryEvery, and
// waits no longer than until the next time: their answers end its wait,
// and the thread the work waits for needs the CPU to run it. A
// zero-timeout Select, whose caller has work of its own, sends them each
// time.
const uringRemoval = 1 << 31

const uringRetryEvery = 200 * time.Microsecond

// unarm queues the removal of fd's poll in flight, if it has one.
func (s *uringSel) unarm(fd int) {
	if s.st[fd] == uringArmed {
		s.rm = append(s.rm, userData(fd, s.regs[fd].gen))
		s.st[fd] = uringIdle
	}
}

// pushRemovals writes into the SQ the queued removals and, when again is
// set, those of the polls answered EALREADY whose completion has not come.
func (s *uringSel) pushRemovals(again bool) {
	for _, ud := range s.rm {
		s.pushSQE(uringOpPollRemove, -1, ud, 0, ud|uringRemoval)
	}
	s.rm = s.rm[:0]
	if !again {
		return
	}
	for _, ud := range s.retry {
		s.pushSQE(uringOpPollRemove, -1, ud, 0, ud|uringRemoval)
		s.retried++
	}
}

// removeNow submits the queued removals (again: and the retries), and no
// other request.
func (s *uringSel) removeNow(again bool) error {
	if len(s.rm) == 0 && (!again || len(s.retry) == 0) {
		return nil
	}
	s.pushRemovals(again)
	s.ring.publish()
	return s.submitNow()
}

// paceRetries reports whether a Select with timeout sends the retries,
// and the timeout it waits with: no longer than until the next time it
// will send them.
func (s *uringSel) paceRetries(timeout time.Duration) (bool, time.Duration) {
	if len(s.retry) == 0 || timeout == 0 {
		return len(s.retry) > 0, timeout
	}
	now := s.clock()
	next := s.lastRetry + uringRetryEvery
	if now >= next {
		s.lastRetry = now
		return true, timeout
	}
	if timeout < 0 || next-now < timeout {
		timeout = next - now
	}
	return false, timeout
}

// ended notes the completion of something other than a live poll: a
// removal (one answered EALREADY puts its poll among the retries), or a
// poll that was removed or replaced.
func (s *uringSel) ended(ud uint64, res int32) {
	switch {
	case ud&uringRemoval == 0:
		s.gone = append(s.gone, ud)
	case res == -int32(unix.EALREADY) && !slices.Contains(s.retry, ud&^uringRemoval):
		s.retry = append(s.retry, ud&^uringRemoval)
	}
}

// settle, after a reap, drops from the retries the polls whose own
// completion came in it (also when it came ahead of the EALREADY).
func (s *uringSel) settle() {
	if len(s.retry) > 0 {
		s.retry = slices.DeleteFunc(s.retry, func(ud uint64) bool { return slices.Contains(s.gone, ud) })
	}
	s.gone = s.gone[:0]
}

var uringEpoch = time.Now()

// uringClock is the selectors' monotonic clock for pacing retries.
func uringClock() time.Duration { return time.Since(uringEpoch) }
