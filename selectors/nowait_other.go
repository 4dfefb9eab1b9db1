//go:build unix && !linux

package selectors

import "golang.org/x/sys/unix"

// Off Linux a zero-timeout poll is the ordinary system call: macOS and
// OpenBSD make every system call through libc, which the Go runtime
// enters as one that may block, and the other systems keep the path the
// conformance suite proves wherever it runs.

// pollNow is poll(fds, 0).
func pollNow(fds []unix.PollFd) (int, error) {
	for {
		n, err := unix.Poll(fds, 0)
		if err != unix.EINTR {
			return nowaitResult("poll", n, err)
		}
	}
}

// selectNow is select(nfd, r, w, nil, 0) on copies of the sets rin and
// win, left in r and w: the ready fds.
func selectNow(nfd int, rin, win, r, w *unix.FdSet) (int, error) {
	for {
		*r, *w = *rin, *win
		n, err := unix.Select(nfd, r, w, nil, &unix.Timeval{})
		if err != unix.EINTR {
			return nowaitResult("select", n, err)
		}
	}
}
