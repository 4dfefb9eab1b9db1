//go:build linux

package loopbench

import (
	"runtime"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// BenchmarkYield is the cost of one yield of the loop's goroutine as the
// loop makes it: after a blocking wait in a system call (200 µs here),
// with a P to spare (serve and load keep one). runtime.Gosched then wakes
// an idle thread to look for work; goyield does not. yield-ns/op is the
// yield's own time; ns/op includes the wait. Run on an idle machine:
//
//	go test -run '^$' -bench Yield -count 10 .
func BenchmarkYield(b *testing.B) {
	for _, y := range []struct {
		name  string
		yield func()
	}{{"gosched", runtime.Gosched}, {"goyield", goyield}} {
		b.Run("impl="+y.name, func(b *testing.B) {
			defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
			wait := unix.NsecToTimespec((200 * time.Microsecond).Nanoseconds())
			var took time.Duration
			for b.Loop() {
				unix.Nanosleep(&wait, nil)
				t := time.Now()
				y.yield()
				took += time.Since(t)
			}
			b.ReportMetric(float64(took.Nanoseconds())/float64(b.N), "yield-ns/op")
		})
	}
}
