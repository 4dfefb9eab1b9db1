//go:build linux

package load

import (
	"runtime"
	"sync"
	"testing"

	"golang.org/x/sys/unix"
)

// TestWorkerYield: a worker's yield leaves its goroutine locked to a
// thread whose timer slack is still 1 ns, also when the goroutine came
// back on another thread (runtime.Gosched, with busy goroutines beside
// it, moves it now and then).
func TestWorkerYield(t *testing.T) {
	done := make(chan struct{})
	go func() {
		defer close(done)
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		prepareThread(-1)
		w := &worker{cpu: -1}
		var busy sync.WaitGroup
		gosched := func() {
			for range 2 {
				busy.Go(func() {
					for range 1000 {
						runtime.Gosched()
					}
				})
			}
			runtime.Gosched()
		}
		for i := range 200 {
			w.yield(gosched)
			if s, err := unix.PrctlRetInt(unix.PR_GET_TIMERSLACK, 0, 0, 0, 0); err != nil || s != 1 {
				t.Errorf("yield %d (%d moves): timer slack %d ns (%v), want 1", i, w.counts.moves, s, err)
				break
			}
			a := threadID()
			runtime.Gosched()
			if b := threadID(); b != a {
				t.Errorf("yield %d: the goroutine is not locked to its thread after the yield (thread %d, then %d)", i, a, b)
				break
			}
		}
		busy.Wait()
		t.Logf("%d of 200 yields came back on another thread", w.counts.moves)
	}()
	<-done
}
