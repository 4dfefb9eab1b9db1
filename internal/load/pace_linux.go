//go:build linux

package load

import (
	"time"

	"golang.org/x/sys/unix"
)

// PacingMethod names how the generator waits for a send time here.
const PacingMethod = "clock_nanosleep, timer slack 1 ns"

// sleepFor blocks the calling goroutine for d in clock_nanosleep on an
// absolute CLOCK_MONOTONIC deadline, with the thread's timer slack set
// to 1 ns first. The Go runtime's timers cannot pace a schedule here:
// when the process is idle the runtime waits for its next timer in
// epoll_wait, whose timeout is whole milliseconds, so a 300 µs sleep
// lasts about a millisecond. A blocking system call keeps the goroutine
// on its thread (the runtime hands the thread's P to other goroutines
// if they need it) and the kernel's high-resolution timer wakes the
// thread within microseconds; the default timer slack would let it wake
// up to 50 µs late. Cost: two system calls (prctl, clock_nanosleep) and
// one wake-up per wait, and one OS thread per connection while it waits.
func sleepFor(d time.Duration) {
	if d <= 0 {
		return
	}
	var now unix.Timespec
	if unix.ClockGettime(unix.CLOCK_MONOTONIC, &now) != nil {
		time.Sleep(d)
		return
	}
	// The goroutine may run on another thread than at its last wait.
	unix.Prctl(unix.PR_SET_TIMERSLACK, 1, 0, 0, 0)
	until := unix.NsecToTimespec(now.Nano() + int64(d))
	for {
		err := unix.ClockNanosleep(unix.CLOCK_MONOTONIC, unix.TIMER_ABSTIME, &until, nil)
		if err != unix.EINTR { // the runtime's preemption signal interrupts it
			return
		}
	}
}

// maxPacingProcs bounds the Ps reserveProcs asks for: each P costs the
// runtime some memory and the collector a share of its workers. Past
// maxPacingProcs-1 connections, sleeping connections may hold every P
// (run more generator processes instead, loopbench merge).
const maxPacingProcs = 256

// procsFor is the GOMAXPROCS an open-loop run of conns connections needs:
// a goroutine asleep in clock_nanosleep keeps its P (in a system call)
// until the runtime's monitor takes it back, which it does only after
// seeing the same call across two of its ticks (20 µs to 10 ms apart).
// With fewer Ps than sleepers plus one, every P can be asleep while
// answers wait unread and other connections' send times pass: measured
// at 15,000 req/s over 10 connections with GOMAXPROCS=1 (a generator
// pinned to one CPU), an uncorrected p50 of 612 µs against a server that
// answers in 70. One P per connection and one for the rest lets a
// sleeper hold only its own.
func procsFor(conns, current int) int {
	return max(current, min(conns+1, maxPacingProcs))
}
