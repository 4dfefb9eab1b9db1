//go:build linux

package loopbench

import (
	"encoding/binary"
	"os"

	"golang.org/x/sys/unix"
)

// wakeup is an eventfd: signal adds 1 to its counter, drain reads it back
// to 0. One fd serves as both ends.
type wakeup struct{ rfd int }

func (w *wakeup) open() error {
	fd, err := unix.Eventfd(0, unix.EFD_CLOEXEC|unix.EFD_NONBLOCK)
	if err != nil {
		return os.NewSyscallError("eventfd", err)
	}
	w.rfd = fd
	return nil
}

func (w *wakeup) signal() {
	var one [8]byte
	binary.NativeEndian.PutUint64(one[:], 1)
	unix.Write(w.rfd, one[:]) // EAGAIN only when the counter is saturated: the loop is awake anyway
}

func (w *wakeup) drain() {
	var buf [8]byte
	unix.Read(w.rfd, buf[:])
}

func (w *wakeup) close() error {
	fd := w.rfd
	w.rfd = -1
	return os.NewSyscallError("close", unix.Close(fd))
}
