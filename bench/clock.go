package bench

import (
	"github.com/loopbench/loopbench"
	"github.com/loopbench/loopbench/internal/loophook"
	"github.com/loopbench/loopbench/internal/measure/valgrind"
	"github.com/loopbench/loopbench/internal/measure/vclock"
)

// The Timers workload does work that follows the loop clock: how many
// timers are due in an iteration, how many iterations a wait takes, how
// long the selector sleeps, where a deadline falls among the pending
// ones. Natively that is what it measures, on the real clock. Counted
// under callgrind in windows (valgrind.Windows), where the process runs some 50 times slower
// and by a varying amount, it would make every process count different
// work; there its loops run under a virtual clock (internal/measure/vclock)
// instead, which stands still while callbacks run and, when the loop
// would wait, moves on by the wait and polls the selector without
// waiting: the same operations, the same timers due in each iteration,
// in every process. (CallSoon's loops never wait and read no clock: they
// keep the real one.)

// countingWindows reports whether the process counts windows
// (valgrind.Windows) or runs natively to size them (valgrind.Sizing: the counter
// learns how many iterations of the counted work fit its benchtime, and a
// benchmark that natively waits on timers, as cold-fire does, is sized by
// its work); tests set it to run the counted mode without callgrind.
var countingWindows = func() bool { return valgrind.Windows() || valgrind.Sizing() }

// countedClock drives l by a virtual clock when the process counts
// windows, before anything is scheduled on it; natively l keeps the real
// clock.
func countedClock(l *loopbench.Loop) *loopbench.Loop {
	if countingWindows() {
		c := new(vclock.Clock)
		loophook.Drive(l, c.Now, c.Wrap)
	}
	return l
}

// newClockLoop is loopbench.New for a workload whose work follows the
// clock (see countedClock).
func newClockLoop(cfg loopbench.Config) (*loopbench.Loop, error) {
	l, err := loopbench.New(cfg)
	if err != nil {
		return nil, err
	}
	return countedClock(l), nil
}

// onClockLoop is onLoop for a workload whose work follows the clock (see
// countedClock).
func onClockLoop(cfg loopbench.Config, prep func(l *loopbench.Loop) (func(Timer, int) error, func(), error)) func() (func(Timer, int) error, func(), error) {
	return onLoop(cfg, func(l *loopbench.Loop) (func(Timer, int) error, func(), error) {
		return prep(countedClock(l))
	})
}
