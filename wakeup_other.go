//go:build unix && !linux

package loopbench

import (
	"os"

	"golang.org/x/sys/unix"
)

// wakeup is a non-blocking self-pipe: signal writes a byte, drain reads
// until the pipe is empty.
type wakeup struct{ rfd, wfd int }

func (w *wakeup) open() error {
	var p [2]int
	if err := unix.Pipe(p[:]); err != nil {
		return os.NewSyscallError("pipe", err)
	}
	for _, fd := range p {
		unix.CloseOnExec(fd)
		if err := unix.SetNonblock(fd, true); err != nil {
			unix.Close(p[0])
			unix.Close(p[1])
			return os.NewSyscallError("fcntl", err)
		}
	}
	w.rfd, w.wfd = p[0], p[1]
	return nil
}

func (w *wakeup) signal() { unix.Write(w.wfd, []byte{1}) }

func (w *wakeup) drain() {
	var buf [64]byte
	for {
		if n, _ := unix.Read(w.rfd, buf[:]); n <= 0 {
			return
		}
	}
}

func (w *wakeup) close() error {
	err := unix.Close(w.wfd)
	if err2 := unix.Close(w.rfd); err == nil {
		err = err2
	}
	w.rfd, w.wfd = -1, -1
	return os.NewSyscallError("close", err)
}
