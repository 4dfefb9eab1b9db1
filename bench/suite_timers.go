package bench

import (
	"fmt"
	"time"

	"github.com/loopbench/loopbench"
)

// timerCases: timers scheduled and fired, cancelled and churned among p
// pending, on each timer queue in both cancel modes, with time.AfterFunc
// as the baseline, then the natural cases.
func timerCases(o Options, add func(Case)) {
	pending := []int{1_000, 100_000, 1_000_000}
	if o.Quick {
		pending = []int{1_000, 100_000}
	}
	heaps := variants(o, func(c loopbench.Config) loopbench.Config {
		return loopbench.Config{Timers: c.Timers}
	})
	for _, p := range pending {
		for _, h := range heaps {
			for _, mode := range []string{"eager", "lazy"} {
				cfg := h
				cfg.TimerCancel = mode
				timerOps(cfg, p, add)
			}
		}
		afterFuncOps(p, add)
	}
	naturalTimerCases(o, heaps, add)
}

// naturalTimerCases: timers from cold at k = 10³, 10⁵, 10⁶ and idle
// timeouts on random connections at p = 10⁴, 10⁵, 10⁶, on each heap in
// both cancel modes, with time.AfterFunc as the baseline.
func naturalTimerCases(o Options, heaps []loopbench.Config, add func(Case)) {
	ks, ps := []int{1_000, 100_000, 1_000_000}, []int{10_000, 100_000, 1_000_000}
	if o.Quick {
		ks, ps = ks[:2], ps[:2]
	}
	eachHeap := func(f func(cfg loopbench.Config)) {
		for _, h := range heaps {
			for _, mode := range []string{"eager", "lazy"} {
				cfg := h
				cfg.TimerCancel = mode
				f(cfg)
			}
		}
	}
	for _, k := range ks {
		eachHeap(func(cfg loopbench.Config) {
			add(Case{"Timers", cfg.String(), fmt.Sprintf("op=cold-fire/k=%d", k), cold(func(t Timer, n int) error { return TimerColdFire(t, cfg, k, n) })})
			add(Case{"Timers", cfg.String(), fmt.Sprintf("op=cold-cancel/k=%d", k), plain(func(t Timer, n int) error { return TimerColdCancel(t, cfg, k, n) })})
		})
		add(Case{"Timers", "impl=afterfunc", fmt.Sprintf("op=cold-fire/k=%d", k), cold(func(t Timer, n int) error { AfterFuncColdFire(t, k, n); return nil })})
		add(Case{"Timers", "impl=afterfunc", fmt.Sprintf("op=cold-cancel/k=%d", k), plain(func(t Timer, n int) error { AfterFuncColdCancel(t, k, n); return nil })})
	}
	for _, p := range ps {
		eachHeap(func(cfg loopbench.Config) {
			add(Case{"Timers", cfg.String(), fmt.Sprintf("op=churn-random/p=%d", p), onClockLoop(cfg, func(l *loopbench.Loop) (func(Timer, int) error, func(), error) {
				hs, idx := FillTimers(l, p), RandomIndices(p, churnIndices)
				return func(t Timer, n int) error {
					return guardPending(func() error { return TimerChurnRandom(t, l, n, hs, idx) })
				}, nil, nil
			})})
		})
		for _, b := range []struct {
			impl  string
			churn func(Timer, int, []*time.Timer, []uint32)
		}{{"afterfunc", AfterFuncChurnRandom}, {"afterfunc-reset", AfterFuncResetChurnRandom}} {
			impl, churn := b.impl, b.churn
			add(Case{"Timers", "impl=" + impl, fmt.Sprintf("op=churn-random/p=%d", p), func() (func(Timer, int) error, func(), error) {
				ts, stop := FillAfterFuncs(p)
				idx := RandomIndices(p, churnIndices)
				return func(t Timer, n int) error { return guardPending(func() error { churn(t, n, ts, idx); return nil }) }, stop, nil
			}})
		}
	}
}

// timerOps adds the schedule-fire, schedule-cancel and churn cases of
// cfg among p pending timers.
func timerOps(cfg loopbench.Config, p int, add func(Case)) {
	ops := []struct {
		op  string
		run func(Timer, *loopbench.Loop, int, []loopbench.TimerHandle) error
	}{
		{"schedule-fire", func(t Timer, l *loopbench.Loop, n int, _ []loopbench.TimerHandle) error {
			return TimerScheduleFire(t, l, n)
		}},
		{"schedule-cancel", func(t Timer, l *loopbench.Loop, n int, _ []loopbench.TimerHandle) error {
			return TimerScheduleCancel(t, l, n)
		}},
		{"churn", func(t Timer, l *loopbench.Loop, n int, hs []loopbench.TimerHandle) error {
			return TimerChurn(t, l, n, hs)
		}},
	}
	for _, op := range ops {
		add(Case{"Timers", cfg.String(), fmt.Sprintf("op=%s/p=%d", op.op, p), onClockLoop(cfg, func(l *loopbench.Loop) (func(Timer, int) error, func(), error) {
			hs := FillTimers(l, p)
			return func(t Timer, n int) error { return guardPending(func() error { return op.run(t, l, n, hs) }) }, nil, nil
		})})
	}
}

// afterFuncOps adds timerOps' cases for time.AfterFunc.
func afterFuncOps(p int, add func(Case)) {
	ops := []struct {
		op  string
		run func(Timer, int, []*time.Timer)
	}{
		{"schedule-fire", func(t Timer, n int, _ []*time.Timer) { AfterFuncScheduleFire(t, n) }},
		{"schedule-cancel", func(t Timer, n int, _ []*time.Timer) { AfterFuncScheduleCancel(t, n) }},
		{"churn", AfterFuncChurn},
	}
	for _, op := range ops {
		add(Case{"Timers", "impl=afterfunc", fmt.Sprintf("op=%s/p=%d", op.op, p), func() (func(Timer, int) error, func(), error) {
			ts, stop := FillAfterFuncs(p)
			return func(t Timer, n int) error { return guardPending(func() error { op.run(t, n, ts); return nil }) }, stop, nil
		}})
	}
}
