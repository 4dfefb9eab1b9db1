//go:build unix && !(linux || openbsd)

package selectors

import (
	"time"

	"golang.org/x/sys/unix"
)

// pollCall names the system call the poll backend waits in.
const pollCall = "poll"

// pollResolution is poll's: whole milliseconds (no ppoll here, or none
// that golang.org/x/sys offers).
const pollResolution = time.Millisecond

// pollWait is poll(fds, d) with d rounded up to whole milliseconds.
func pollWait(fds []unix.PollFd, d time.Duration, _ *unix.Timespec) (int, error) {
	return unix.Poll(fds, msTimeout(d))
}
