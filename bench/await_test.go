package bench

import (
	"runtime"
	"testing"
	"time"

	"github.com/loopbench/loopbench"
)

// TestPullStepEnds: PullStep returns for any n, fewer round trips than
// coroutines included, and leaves no coroutine behind.
func TestPullStepEnds(t *testing.T) {
	for _, n := range []int{0, 1, 7, 100, 1001} {
		before := runtime.NumGoroutine()
		l, err := loopbench.New(loopbench.Config{})
		if err != nil {
			t.Fatal(err)
		}
		if err := PullStep(&timer{}, l, 10, n); err != nil {
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
}
