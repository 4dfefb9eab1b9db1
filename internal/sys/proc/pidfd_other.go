//go:build unix && !linux

package proc

import (
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// Pipe returns a pipe whose ends are close-on-exec; the parent's end
// (the read end if parentReads, else the write end) is non-blocking, the
// child's blocking, as a child expects its standard streams. Without
// pipe2 the close-on-exec flags are set under syscall.ForkLock, so no
// child started meanwhile inherits the ends.
func Pipe(parentReads bool) (parent, child int, err error) {
	var p [2]int
	syscall.ForkLock.RLock()
	err = unix.Pipe(p[:])
	if err == nil {
		unix.CloseOnExec(p[0])
		unix.CloseOnExec(p[1])
	}
	syscall.ForkLock.RUnlock()
	if err != nil {
		return -1, -1, os.NewSyscallError("pipe", err)
	}
	parent, child = p[1], p[0]
	if parentReads {
		parent, child = p[0], p[1]
	}
	if err := unix.SetNonblock(parent, true); err != nil {
		unix.Close(p[0])
		unix.Close(p[1])
		return -1, -1, os.NewSyscallError("fcntl", err)
	}
	return parent, child, nil
}

// PidFD returns ErrNoPidFD: only Linux has pidfd_open, and the caller
// watches for SIGCHLD instead.
func PidFD(pid int) (int, error) { return -1, ErrNoPidFD }
