//go:build linux

package proc

import (
	"os"

	"golang.org/x/sys/unix"
)

// Pipe returns a pipe whose ends are close-on-exec; the parent's end
// (the read end if parentReads, else the write end) is non-blocking, the
// child's blocking, as a child expects its standard streams.
func Pipe(parentReads bool) (parent, child int, err error) {
	var p [2]int
	if err := unix.Pipe2(p[:], unix.O_CLOEXEC); err != nil {
		return -1, -1, os.NewSyscallError("pipe2", err)
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

// PidFD opens a descriptor of process pid that becomes readable when it
// exits (it works on a zombie too, so it cannot miss the exit).
func PidFD(pid int) (int, error) {
	fd, err := unix.PidfdOpen(pid, 0)
	if err == unix.ENOSYS {
		return -1, ErrNoPidFD
	}
	if err != nil {
		return -1, os.NewSyscallError("pidfd_open", err)
	}
	unix.CloseOnExec(fd)
	return fd, nil
}
