package bench

import (
	"runtime"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"
	"github.com/loopbench/loopbench"
	"github.com/loopbench/loopbench/internal/sys/cpu"
)

// wakeupWait is the wait the Wakeup workload asks for: below a
// millisecond, where a millisecond-granular loop (asyncio, libuv, libev)
// cannot wait at all.
const wakeupWait = 200 * time.Microsecond

// lateness is what the Wakeup workload reports: how much later than asked
// each wait ended, in ns, as an HDR histogram (three significant digits).
type lateness struct{ h *hdrhistogram.Histogram }

func newLateness() lateness { return lateness{hdrhistogram.New(1, int64(time.Minute), 3)} }

// add records one wait that was to end at due and ended at woke.
func (l lateness) add(due, woke time.Duration) {
	l.h.RecordValue(int64(max(woke-due, 0)))
}

// report reports the p50, p90 and p99 lateness in ns.
func (l lateness) report(t Timer) {
	t.ReportMetric(float64(l.h.ValueAtQuantile(50)), "late-p50-ns")
	t.ReportMetric(float64(l.h.ValueAtQuantile(90)), "late-p90-ns")
	t.ReportMetric(float64(l.h.ValueAtQuantile(99)), "late-p99-ns")
}

// onWakeThread runs f on a thread of its own, locked, with its timer
// slack lowered to 1 ns (cpu.LowerTimerSlack), as a pacing loop runs. The
// thread is never unlocked, so it ends with f's goroutine and its slack
// does not leak into the runtime's pool.
func onWakeThread(f func() error) error {
	errc := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		if err := cpu.LowerTimerSlack(); err != nil {
			errc <- err
			return
		}
		errc <- f()
	}()
	return <-errc
}

// LoopWakeup is a loop's timer precision on an idle loop: n CallLater(d)
// in a row, each scheduled by the callback of the one before, on a locked
// thread with 1 ns timer slack. It reports how late each fired by the
// loop's clock (late-p50/p90/p99-ns); ns/op is d plus the mean lateness.
func LoopWakeup(t Timer, l *loopbench.Loop, n int, d time.Duration) error {
	return onWakeThread(func() error {
		late := newLateness()
		left := n
		var due time.Duration
		var fire func()
		fire = func() {
			late.add(due, l.Time())
			if left--; left == 0 {
				l.Stop()
				return
			}
			due = l.Time() + d
			l.CallAt(due, fire)
		}
		t.ResetTimer()
		due = l.Time() + d
		l.CallAt(due, fire)
		err := l.RunForever()
		t.StopTimer()
		late.report(t)
		return err
	})
}

// wakeupParams names the wait in the Wakeup cases.
const wakeupParams = "wait=200us"

// wakeupCases: a loop's 200 µs timer on each selector, and on Linux the
// machine's floor, clock_nanosleep, as the baseline of the same run.
func wakeupCases(o Options, add func(Case)) {
	for _, cfg := range variants(o, func(c loopbench.Config) loopbench.Config { return loopbench.Config{Selector: c.Selector} }) {
		add(Case{"Wakeup", cfg.String(), wakeupParams, onLoop(cfg, func(l *loopbench.Loop) (func(Timer, int) error, func(), error) {
			return func(t Timer, n int) error { return LoopWakeup(t, l, n, wakeupWait) }, nil, nil
		})})
	}
	addSleepWakeup(add)
}
