package bench

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"sync/atomic"
	"time"

	"github.com/loopbench/loopbench"
)

// Deadlines of pending timers spread over [MinDelay, MinDelay+Spread): the
// timeouts of a server, a minute or more ahead, never due during a
// measurement. A pending timer that fires anyway (a -benchtime of minutes)
// fails the measurement with ErrPendingFired rather than time a firing
// in a best case.
const (
	MinDelay = time.Minute
	Spread   = 9 * time.Minute
)

// pendingFired counts the pending timers that fired: the callback of every
// timer the best cases keep pending.
var pendingFired atomic.Int64

func pending() { pendingFired.Add(1) }

// ErrPendingFired is returned, wrapped, by a best-case timer workload
// during which a timer meant to stay pending fired.
var ErrPendingFired = errors.New("pending timers fired during the measurement: it ran past their deadlines (MinDelay); use a shorter -benchtime")

// guardPending runs run and fails when a pending timer fired during it.
func guardPending(run func() error) error {
	before := pendingFired.Load()
	err := run()
	if fired := pendingFired.Load() - before; err == nil && fired > 0 {
		err = fmt.Errorf("%d %w", fired, ErrPendingFired)
	}
	return err
}

// delays are pseudo-random delays within the spread, precomputed so the
// workloads do not time the generator.
var delays = func() []time.Duration {
	r := rand.New(rand.NewPCG(11, 12))
	d := make([]time.Duration, 1<<14)
	for i := range d {
		d[i] = MinDelay + time.Duration(r.Int64N(int64(Spread)))
	}
	return d
}()

func delay(i int) time.Duration { return delays[i&(len(delays)-1)] }

// FillTimers schedules p timers spread over the deadlines' range: the
// pending timers of the timer workloads, set up once and shared by every
// run of a workload on that loop.
func FillTimers(l *loopbench.Loop, p int) []loopbench.TimerHandle {
	hs := make([]loopbench.TimerHandle, p)
	for i := range hs {
		hs[i] = l.CallLater(delay(i*7+3), pending)
	}
	return hs
}

// TimerScheduleFire isolates a timer's life through the loop, with the
// timers FillTimers left pending: each operation schedules a timer that is
// already due, and the loop fires it on the next iteration (100 per
// iteration), so it travels to the top of the heap and is popped from it.
func TimerScheduleFire(t Timer, l *loopbench.Loop, n int) error {
	return drive(t, l, n, 100, func(k int) {
		for range k {
			l.CallLater(0, nop)
		}
	})
}

// TimerScheduleCancel isolates scheduling and cancelling, with the timers
// FillTimers left pending: each operation schedules a timeout within the
// spread and cancels it, 1000 per iteration (lazy mode cleans up as
// asyncio does).
func TimerScheduleCancel(t Timer, l *loopbench.Loop, n int) error {
	i := 0
	return drive(t, l, n, 1000, func(k int) {
		for range k {
			i++
			l.CallLater(delay(i), nop).Cancel()
		}
	})
}

// TimerChurn is a server's timeouts, hs being what FillTimers returned:
// each operation cancels the oldest (its request completed) and schedules
// a new one in its place; every tenth operation also schedules a timeout
// that fires at once (a request that timed out).
func TimerChurn(t Timer, l *loopbench.Loop, n int, hs []loopbench.TimerHandle) error {
	p := len(hs)
	i := 0
	return drive(t, l, n, 1000, func(k int) {
		for range k {
			i++
			slot := i % p
			hs[slot].Cancel()
			hs[slot] = l.CallLater(delay(i), pending)
			if i%10 == 0 {
				l.CallLater(0, nop)
			}
		}
	})
}

// FillAfterFuncs starts p time.AfterFunc timers spread like FillTimers, the
// pending timers of the AfterFunc baselines, and returns a func that stops
// them.
func FillAfterFuncs(p int) ([]*time.Timer, func()) {
	ts := make([]*time.Timer, p)
	for i := range ts {
		ts[i] = time.AfterFunc(delay(i*7+3), pending)
	}
	return ts, func() {
		for _, t := range ts {
			t.Stop()
		}
	}
}

// AfterFuncScheduleCancel is TimerScheduleCancel on time.AfterFunc and
// Timer.Stop, the Go runtime's timers, with FillAfterFuncs' timers pending.
func AfterFuncScheduleCancel(t Timer, n int) {
	t.ResetTimer()
	for i := range n {
		time.AfterFunc(delay(i), nop).Stop()
	}
	t.StopTimer()
}

// AfterFuncScheduleFire is TimerScheduleFire on time.AfterFunc: each
// operation starts a timer that is already due and waits until the
// runtime has run it, 100 at a time.
func AfterFuncScheduleFire(t Timer, n int) {
	done := make(chan struct{}, 100)
	fire := func() { done <- struct{}{} }
	t.ResetTimer()
	for i := 0; i < n; i += 100 {
		k := min(100, n-i)
		for range k {
			time.AfterFunc(0, fire)
		}
		for range k {
			<-done
		}
	}
	t.StopTimer()
}

// AfterFuncChurn is TimerChurn on time.AfterFunc, ts being what
// FillAfterFuncs returned.
func AfterFuncChurn(t Timer, n int, ts []*time.Timer) {
	p := len(ts)
	t.ResetTimer()
	for i := 1; i <= n; i++ {
		slot := i % p
		ts[slot].Stop()
		ts[slot] = time.AfterFunc(delay(i), pending)
		if i%10 == 0 {
			time.AfterFunc(0, nop)
		}
	}
	t.StopTimer()
}
