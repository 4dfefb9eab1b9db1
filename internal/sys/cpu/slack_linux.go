//go:build linux

package cpu

import (
	"os"

	"golang.org/x/sys/unix"
)

// LowerTimerSlack sets the calling thread's timer slack to 1 ns
// (prctl PR_SET_TIMERSLACK). Linux lets every timed wait of a thread
// (epoll_pwait2, ppoll, clock_nanosleep) end up to its slack late so that
// wake-ups can be batched, 50 µs by default; a thread that paces sends or
// fires sub-millisecond timers wants none. The setting is the thread's,
// so the caller locks its goroutine to its thread first
// (runtime.LockOSThread) and keeps it locked while it waits. Elsewhere it
// does nothing.
func LowerTimerSlack() error {
	return os.NewSyscallError("prctl", unix.Prctl(unix.PR_SET_TIMERSLACK, 1, 0, 0, 0))
}
