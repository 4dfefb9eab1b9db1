//go:build linux

package load

import (
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// prepareThread readies the calling (locked) thread to run a generator
// loop: pinned to cpu unless it is -1, and with a timer slack of 1 ns,
// so that the kernel wakes the loop's waits when they end rather than up
// to 50 µs later (the default slack).
//
// The timer slack is set here, on the loop's thread; when the loop
// package gets a function of its own for it, this call is the one to
// replace.
func prepareThread(cpu int) {
	unix.Prctl(unix.PR_SET_TIMERSLACK, 1, 0, 0, 0)
	if cpu < 0 {
		return
	}
	var set unix.CPUSet
	set.Set(cpu)
	unix.SchedSetaffinity(0, &set) // the CLI checked the CPU; a failure leaves the thread unpinned
}

// enableRecvTimestamps asks the kernel to stamp what fd receives
// (SO_TIMESTAMPNS), for the receive lag; false when it cannot.
func enableRecvTimestamps(fd int) bool {
	return unix.SetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_TIMESTAMPNS, 1) == nil
}

// stampSpace is the control buffer's size for one SCM_TIMESTAMPNS.
var stampSpace = unix.CmsgSpace(int(unsafe.Sizeof(unix.Timespec{})))

// readStamped reads from fd with recvmsg and returns the kernel's
// receive timestamp of the data (Unix ns, 0 when none came with it).
func readStamped(fd int, buf []byte) (n int, arrived int64, err error) {
	var oob [64]byte
	n, oobn, _, _, err := unix.Recvmsg(fd, buf, oob[:stampSpace], 0)
	if err != nil || oobn < unix.CmsgSpace(0) {
		return n, 0, err
	}
	msgs, perr := unix.ParseSocketControlMessage(oob[:oobn])
	if perr != nil {
		return n, 0, nil
	}
	for _, m := range msgs {
		if m.Header.Level == unix.SOL_SOCKET && m.Header.Type == unix.SCM_TIMESTAMPNS && len(m.Data) >= int(unsafe.Sizeof(unix.Timespec{})) {
			ts := (*unix.Timespec)(unsafe.Pointer(&m.Data[0]))
			return n, time.Unix(int64(ts.Sec), int64(ts.Nsec)).UnixNano(), nil
		}
	}
	return n, 0, nil
}
