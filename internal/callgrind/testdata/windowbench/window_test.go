// Package windowbench has benchmarks counted by windows, for package
// callgrind's test: a large setup, then a timed loop.
package windowbench

import (
	"testing"
	"time"

	"github.com/loopbench/loopbench/bench"
	"github.com/loopbench/loopbench/internal/valgrind"
)

var sink uint64

//go:noinline
func spin(n int) {
	x := sink
	for range n {
		x = x*6364136223846793005 + 1442695040888963407
	}
	sink = x
}

func loop(per int) func(bench.Timer, int) error {
	return func(t bench.Timer, n int) error {
		spin(2_000_000) // setup: not counted
		t.ResetTimer()
		for range n {
			spin(per)
		}
		t.StopTimer()
		spin(200_000) // teardown: not counted
		return nil
	}
}

func BenchmarkSpin(b *testing.B)      { bench.Counted(b, "Spin", b.N, loop(100)) }
func BenchmarkSpinTwice(b *testing.B) { bench.Counted(b, "SpinTwice", b.N, loop(200)) }

// BenchmarkWaits sleeps 10 ms an op natively, as a benchmark that waits on
// timers, and only spins when run to size windows (valgrind.Sizing), as
// such a benchmark does on the virtual clock it is counted by.
func BenchmarkWaits(b *testing.B) {
	bench.Counted(b, "Waits", b.N, func(t bench.Timer, n int) error {
		for range n {
			if valgrind.Sizing() {
				spin(100)
			} else {
				time.Sleep(10 * time.Millisecond)
			}
		}
		return nil
	})
}

// BenchmarkRealClock cannot be counted: it skips itself, with a reason,
// where windows are counted or sized, as loopbench's harness skips the
// Go runtime's timers.
func BenchmarkRealClock(b *testing.B) {
	if valgrind.Windows() || valgrind.Sizing() {
		b.Skip("not countable: waits on the real clock")
	}
	for range b.N {
		time.Sleep(time.Millisecond)
	}
}
