package bench

import "github.com/loopbench/loopbench"

// RunOnceStopRun is asyncio's stop(); run_forever() on an idle loop, the
// natural way to run one iteration from outside: each operation is
// Stop() then RunForever(), which does exactly one iteration and returns.
func RunOnceStopRun(t Timer, l *loopbench.Loop, n int) error {
	t.ResetTimer()
	for range n {
		l.Stop()
		if err := l.RunForever(); err != nil {
			return err
		}
	}
	t.StopTimer()
	return nil
}

// RunOnceUntilComplete is RunUntilComplete of a future that is already
// done, what every run_until_complete that finds its work finished costs:
// one iteration (the done callback that stops the loop) per operation.
func RunOnceUntilComplete(t Timer, l *loopbench.Loop, n int) error {
	f := l.CreateFuture()
	f.SetResult(nil)
	t.ResetTimer()
	for range n {
		if _, err := l.RunUntilComplete(f); err != nil {
			return err
		}
	}
	t.StopTimer()
	return nil
}

// RunOnceInRun is the baseline: one iteration inside a run, as a chain of
// one callback that re-posts itself, on the same idle loop.
func RunOnceInRun(t Timer, l *loopbench.Loop, n int) error {
	left := n
	var next func()
	next = func() {
		if left--; left > 0 {
			l.CallSoon(next)
		} else {
			l.Stop()
		}
	}
	l.CallSoon(next)
	t.ResetTimer()
	err := l.RunForever()
	t.StopTimer()
	return err
}
