//go:build linux

package cpu

import (
	"runtime"
	"testing"

	"golang.org/x/sys/unix"
)

// TestLowerTimerSlack: the calling thread's slack is 1 ns afterwards.
func TestLowerTimerSlack(t *testing.T) {
	done := make(chan struct{})
	go func() {
		defer close(done)
		runtime.LockOSThread() // the thread exits with the goroutine, its slack with it
		if err := LowerTimerSlack(); err != nil {
			t.Error(err)
			return
		}
		slack, _, e := unix.RawSyscall6(unix.SYS_PRCTL, unix.PR_GET_TIMERSLACK, 0, 0, 0, 0, 0)
		if e != 0 || slack != 1 {
			t.Errorf("PR_GET_TIMERSLACK = %d, %v; want 1", slack, e)
		}
	}()
	<-done
}
