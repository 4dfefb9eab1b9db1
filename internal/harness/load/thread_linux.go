//go:build linux

package load

import (
	"os"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/loopbench/loopbench/internal/sys/cpu"
)

// prepareThread readies the calling (locked) thread to run a generator
// loop: pinned to CPU core unless it is -1, and with a timer slack of 1 ns,
// so that the kernel wakes the loop's waits when they end rather than up
// to 50 µs later (the default slack).
func prepareThread(core int) {
	cpu.LowerTimerSlack() // a failure leaves the default slack: waits end later, still counted as pacing lag
	if core < 0 {
		return
	}
	var set unix.CPUSet
	set.Set(core)
	unix.SchedSetaffinity(0, &set) // the CLI checked the CPU; a failure leaves the thread unpinned
}

// threadID is the calling thread's id.
func threadID() int { return unix.Gettid() }

// enableRecvTimestamps asks the kernel to stamp what fd receives
// (SO_TIMESTAMPNS), for the receive lag; false when it cannot.
func enableRecvTimestamps(fd int) bool {
	return unix.SetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_TIMESTAMPNS, 1) == nil
}

// stampReader reads with recvmsg through a header, an iovec and a
// control buffer of its own, so that a read allocates nothing; one per
// loop, used on its thread.
type stampReader struct {
	hdr unix.Msghdr
	iov unix.Iovec
	oob [64]byte
}

// read reads from the non-blocking fd into buf and returns the kernel's
// receive timestamp of the data (Unix ns, 0 when none came with it). As
// sock.Read, it is a raw system call (a non-blocking socket never blocks),
// retried on EINTR, and returns unix.EAGAIN unwrapped.
func (s *stampReader) read(fd int, buf []byte) (n int, arrived int64, err error) {
	s.iov.Base = &buf[0]
	s.iov.SetLen(len(buf))
	s.hdr = unix.Msghdr{Iov: &s.iov, Control: &s.oob[0]}
	s.hdr.SetIovlen(1)
	s.hdr.SetControllen(len(s.oob))
	var r uintptr
	var errno unix.Errno
	for {
		r, _, errno = unix.RawSyscall(unix.SYS_RECVMSG, uintptr(fd), uintptr(unsafe.Pointer(&s.hdr)), 0)
		if errno != unix.EINTR {
			break
		}
	}
	switch errno {
	case 0:
	case unix.EAGAIN:
		return 0, 0, unix.EAGAIN
	default:
		return 0, 0, os.NewSyscallError("read", errno)
	}
	head := unix.CmsgLen(0)
	if int(s.hdr.Controllen) < head+int(unsafe.Sizeof(unix.Timespec{})) {
		return int(r), 0, nil
	}
	h := (*unix.Cmsghdr)(unsafe.Pointer(&s.oob[0]))
	if h.Level != unix.SOL_SOCKET || h.Type != unix.SCM_TIMESTAMPNS {
		return int(r), 0, nil
	}
	ts := (*unix.Timespec)(unsafe.Pointer(&s.oob[head]))
	return int(r), time.Unix(int64(ts.Sec), int64(ts.Nsec)).UnixNano(), nil
}
