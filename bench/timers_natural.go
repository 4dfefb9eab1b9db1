package bench

import (
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"time"

	"github.com/loopbench/loopbench"
)

// The natural uses of a timer queue: timers from cold (a fresh loop,
// libev's shape) and idle timeouts on random connections. They are
// measured next to the best cases of timers.go, which keep the pending
// timers prebuilt and cancel the newest or the oldest.

// ColdSpread is the range of the from-cold delays: uniform in [0, 100 ms).
const ColdSpread = 100 * time.Millisecond

// IdleTimeout is the timeout a request re-arms on its connection.
const IdleTimeout = 10 * time.Second

// coldDelays are the from-cold delays, drawn before the timed loop
// (drawColdDelays) so that the generator is not timed, and only in a
// process that runs a from-cold benchmark: 2²⁰ draws are most of the
// package's start-up, which every counted process would pay under
// valgrind.
var (
	coldDelays []time.Duration
	coldOnce   sync.Once
)

// drawColdDelays draws coldDelays, once per process.
func drawColdDelays() {
	coldOnce.Do(func() {
		r := rand.New(rand.NewPCG(21, 22))
		coldDelays = make([]time.Duration, 1<<20)
		for i := range coldDelays {
			coldDelays[i] = time.Duration(r.Int64N(int64(ColdSpread)))
		}
	})
}

func coldDelay(i int) time.Duration { return coldDelays[i&(len(coldDelays)-1)] }

// TimerColdFire is timers from cold: each operation makes a fresh loop,
// schedules k timers with delays uniform in [0, 100 ms), runs it until all
// have fired, and closes it (making and closing the loop are not timed).
// Its figures are cpu-ns/timer, the process's CPU time over scheduling and
// firing per timer, and schedule-ns/timer, the wall time of scheduling
// alone. It reports no ns/op (a zero ns/op metric, which go test and run
// leave out): an operation's wall time is mostly the 100 ms wait, and
// would only add a comparison of sleeps to every gate.
func TimerColdFire(t Timer, cfg loopbench.Config, k, n int) error {
	var cpu, sched time.Duration
	drawColdDelays()
	t.ResetTimer()
	for range n {
		t.StopTimer()
		l, err := newClockLoop(cfg)
		if err != nil {
			return err
		}
		fired := 0
		fire := func() {
			if fired++; fired == k {
				l.Stop()
			}
		}
		t.StartTimer()
		c0, w0 := processCPU(), time.Now()
		for i := range k {
			l.CallLater(coldDelay(i), fire)
		}
		sched += time.Since(w0)
		err = l.RunForever()
		cpu += processCPU() - c0
		t.StopTimer()
		l.Close()
		t.StartTimer()
		if err != nil {
			return err
		}
	}
	t.StopTimer()
	perTimer(t, cpu, n*k, "cpu-ns/timer")
	perTimer(t, sched, n*k, "schedule-ns/timer")
	t.ReportMetric(0, "ns/op")
	return nil
}

// TimerColdCancel is the other from-cold shape: each operation makes a
// fresh loop, schedules k timers 10 s ahead, cancels them all in the
// order scheduled and runs one iteration (where lazy cancel cleans up);
// ns/timer is its wall time per timer, schedule-ns/timer the scheduling's.
func TimerColdCancel(t Timer, cfg loopbench.Config, k, n int) error {
	var total, sched time.Duration
	hs := make([]loopbench.TimerHandle, k)
	t.ResetTimer()
	for range n {
		t.StopTimer()
		l, err := newClockLoop(cfg)
		if err != nil {
			return err
		}
		t.StartTimer()
		w0 := time.Now()
		for i := range hs {
			hs[i] = l.CallLater(IdleTimeout, nop)
		}
		sched += time.Since(w0)
		for _, h := range hs {
			h.Cancel()
		}
		l.Stop()
		err = l.RunForever()
		total += time.Since(w0)
		t.StopTimer()
		l.Close()
		t.StartTimer()
		if err != nil {
			return err
		}
	}
	t.StopTimer()
	perTimer(t, total, n*k, "ns/timer")
	perTimer(t, sched, n*k, "schedule-ns/timer")
	return nil
}

func perTimer(t Timer, d time.Duration, timers int, unit string) {
	if timers > 0 {
		t.ReportMetric(float64(d.Nanoseconds())/float64(timers), unit)
	}
}

// RandomIndices returns m indices in [0, p) from a seeded generator: the
// connections random requests arrive on, precomputed.
func RandomIndices(p, m int) []uint32 {
	r := rand.New(rand.NewPCG(uint64(p), 31))
	idx := make([]uint32, m)
	for i := range idx {
		idx[i] = r.Uint32N(uint32(p))
	}
	return idx
}

// churnIndices is how many precomputed indices a random churn cycles
// through: enough that p = 10⁶ connections are touched all over.
const churnIndices = 1 << 20

// TimerChurnRandom is idle timeouts on random connections: hs holds one
// pending timeout per connection (FillTimers), and each operation is a
// request on a random connection, which cancels its timeout and arms a
// new one IdleTimeout ahead, as asyncio's handle.cancel() and
// call_later(). 1000 requests per iteration.
func TimerChurnRandom(t Timer, l *loopbench.Loop, n int, hs []loopbench.TimerHandle, idx []uint32) error {
	i := 0
	return drive(t, l, n, 1000, func(k int) {
		for range k {
			c := idx[i&(len(idx)-1)]
			i++
			hs[c].Cancel()
			hs[c] = l.CallLater(IdleTimeout, pending)
		}
	})
}

// AfterFuncColdFire is TimerColdFire on time.AfterFunc: k runtime timers
// with the same delays, waited for until all have run.
func AfterFuncColdFire(t Timer, k, n int) {
	var cpu, sched time.Duration
	drawColdDelays()
	done := make(chan struct{})
	t.ResetTimer()
	for range n {
		var fired atomic.Int64
		fire := func() {
			if fired.Add(1) == int64(k) {
				done <- struct{}{}
			}
		}
		c0, w0 := processCPU(), time.Now()
		for i := range k {
			time.AfterFunc(coldDelay(i), fire)
		}
		sched += time.Since(w0)
		<-done
		cpu += processCPU() - c0
	}
	t.StopTimer()
	perTimer(t, cpu, n*k, "cpu-ns/timer")
	perTimer(t, sched, n*k, "schedule-ns/timer")
}

// AfterFuncColdCancel is TimerColdCancel on time.AfterFunc and Stop.
func AfterFuncColdCancel(t Timer, k, n int) {
	var total, sched time.Duration
	ts := make([]*time.Timer, k)
	t.ResetTimer()
	for range n {
		w0 := time.Now()
		for i := range ts {
			ts[i] = time.AfterFunc(IdleTimeout, pending)
		}
		sched += time.Since(w0)
		for _, tm := range ts {
			tm.Stop()
		}
		total += time.Since(w0)
	}
	t.StopTimer()
	perTimer(t, total, n*k, "ns/timer")
	perTimer(t, sched, n*k, "schedule-ns/timer")
}

// AfterFuncChurnRandom is TimerChurnRandom on runtime timers with the same
// operations: the request's timer is stopped and a new one started with
// time.AfterFunc.
func AfterFuncChurnRandom(t Timer, n int, ts []*time.Timer, idx []uint32) {
	t.ResetTimer()
	for i := range n {
		c := idx[i&(len(idx)-1)]
		ts[c].Stop()
		ts[c] = time.AfterFunc(IdleTimeout, pending)
	}
	t.StopTimer()
}

// AfterFuncResetChurnRandom is a Go server's own idiom for the same idle
// timeouts, which asyncio's API has no counterpart of: Timer.Reset moves
// the connection's timer in place (the runtime fixes its heap lazily).
func AfterFuncResetChurnRandom(t Timer, n int, ts []*time.Timer, idx []uint32) {
	t.ResetTimer()
	for i := range n {
		ts[idx[i&(len(idx)-1)]].Reset(IdleTimeout)
	}
	t.StopTimer()
}
