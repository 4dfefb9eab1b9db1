//go:build linux || openbsd

package selectors

import (
	"time"

	"golang.org/x/sys/unix"
)

// pollCall names the system call the poll backend waits in.
const pollCall = "ppoll"

// pollResolution is ppoll's: a timespec.
const pollResolution = time.Nanosecond

// pollWait is ppoll(fds, d) with no signal mask; ts is the caller's
// scratch for the timeout.
func pollWait(fds []unix.PollFd, d time.Duration, ts *unix.Timespec) (int, error) {
	return unix.Ppoll(fds, tsTimeout(d, ts), nil)
}
