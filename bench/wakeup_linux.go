//go:build linux

package bench

import (
	"os"
	"time"

	"golang.org/x/sys/unix"
)

// addSleepWakeup adds the machine's floor to the Wakeup workload: the
// same waits in clock_nanosleep.
func addSleepWakeup(add func(Case)) {
	add(Case{"Wakeup", "impl=nanosleep", wakeupParams, plain(func(t Timer, n int) error { return SleepWakeup(t, n, wakeupWait) })})
}

// SleepWakeup is the machine's wake-up floor: n clock_nanosleep calls to
// an absolute CLOCK_MONOTONIC deadline d ahead, on a locked thread with
// 1 ns timer slack, nothing else in the way. It reports how late each
// wait ended (late-p50/p90/p99-ns), the least any loop on this machine
// can be late by.
func SleepWakeup(t Timer, n int, d time.Duration) error {
	return onWakeThread(func() error {
		late := newLateness()
		t.ResetTimer()
		for range n {
			now, err := monotonic()
			if err != nil {
				return err
			}
			due := now + d
			ts := unix.NsecToTimespec(int64(due))
			for {
				err = unix.ClockNanosleep(unix.CLOCK_MONOTONIC, unix.TIMER_ABSTIME, &ts, nil)
				if err != unix.EINTR {
					break
				}
			}
			if err != nil {
				return os.NewSyscallError("clock_nanosleep", err)
			}
			woke, err := monotonic()
			if err != nil {
				return err
			}
			late.add(due, woke)
		}
		t.StopTimer()
		late.report(t)
		return nil
	})
}

// monotonic is CLOCK_MONOTONIC, the clock clock_nanosleep waits on.
func monotonic() (time.Duration, error) {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_MONOTONIC, &ts); err != nil {
		return 0, os.NewSyscallError("clock_gettime", err)
	}
	return time.Duration(ts.Nano()), nil
}
