package bench

import (
	"runtime"
	"testing"
	"time"

	"github.com/loopbench/loopbench"
)

// TestPullStepEnds: PullStep and PullWake return for any n, fewer round
// trips than coroutines included, and leave no coroutine behind.
func TestPullStepEnds(t *testing.T) {
	for _, run := range []func(Timer, *loopbench.Loop, int, int) error{PullStep, PullWake} {
		for _, n := range []int{0, 1, 7, 100, 1001} {
			pullStepEnds(t, run, n)
		}
	}
}

func pullStepEnds(t *testing.T, run func(Timer, *loopbench.Loop, int, int) error, n int) {
	t.Helper()
	before := runtime.NumGoroutine()
	l, err := loopbench.New(loopbench.Config{})
	if err != nil {
		t.Fatal(err)
	}
	if err := run(&calls{}, l, 10, n); err != nil {
		t.Fatalf("n=%d: %v", n, err)
	}
	l.Close()
	deadline := time.Now().Add(10 * time.Second)
	for runtime.NumGoroutine() > before {
		if time.Now().After(deadline) {
			t.Fatalf("n=%d: %d goroutines after, %d before", n, runtime.NumGoroutine(), before)
		}
		time.Sleep(time.Millisecond)
	}
}

// TestPullWakeTakesTwoDispatches: with one coroutine, a PullStep round
// trip takes one loop iteration and a PullWake round trip two, counted by
// a callback that runs once per iteration.
func TestPullWakeTakesTwoDispatches(t *testing.T) {
	const n = 50
	for _, c := range []struct {
		name string
		run  func(Timer, *loopbench.Loop, int, int) error
		want int
	}{{"PullStep", PullStep, n + 1}, {"PullWake", PullWake, 2*n + 1}} {
		l, err := loopbench.New(loopbench.Config{})
		if err != nil {
			t.Fatal(err)
		}
		iterations := 0
		var tick func()
		tick = func() { iterations++; l.CallSoon(tick) }
		l.CallSoon(tick)
		if err := c.run(&calls{}, l, 1, n); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		l.Close()
		if iterations != c.want {
			t.Errorf("%s: %d round trips took %d iterations, want %d", c.name, n, iterations, c.want)
		}
	}
}
