//go:build linux

package bench

import (
	"os"
	"runtime"

	"golang.org/x/sys/unix"
)

// SignalfdThread is the signalfd alternative to SignalNotify, as far as a
// Go process can have one: SIGUSR2 blocked in one locked thread, sent to
// that thread (tgkill) and read from a signalfd there. A signal sent to
// the process would go to the Go runtime's handler on another thread,
// where it is not blocked, and never reach the signalfd; that is why the
// loop does not use one.
func SignalfdThread(t Timer, n int) error {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	var set, old unix.Sigset_t
	set.Val[(unix.SIGUSR2-1)/64] |= 1 << ((uint(unix.SIGUSR2) - 1) % 64)
	if err := unix.PthreadSigmask(unix.SIG_BLOCK, &set, &old); err != nil {
		return os.NewSyscallError("pthread_sigmask", err)
	}
	defer unix.PthreadSigmask(unix.SIG_SETMASK, &old, nil)
	fd, err := unix.Signalfd(-1, &set, unix.SFD_CLOEXEC)
	if err != nil {
		return os.NewSyscallError("signalfd", err)
	}
	defer unix.Close(fd)
	pid, tid := unix.Getpid(), unix.Gettid()
	var info [128]byte
	t.ResetTimer()
	for range n {
		if err := unix.Tgkill(pid, tid, unix.SIGUSR2); err != nil {
			return os.NewSyscallError("tgkill", err)
		}
		for {
			if _, err := unix.Read(fd, info[:]); err != unix.EINTR {
				break
			}
		}
	}
	t.StopTimer()
	return nil
}

// addSignalfdBaseline adds the Signal workload's baseline, signalfd read by
// a locked thread.
func addSignalfdBaseline(add func(Case)) {
	add(Case{"Signal", "impl=signalfd-thread", "op=deliver", plain(func(t Timer, n int) error { return SignalfdThread(t, n) })})
}
