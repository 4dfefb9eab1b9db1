// Package windowbench has benchmarks counted by windows, for package
// callgrind's test (built with the gate's overlay of the testing
// package): a large setup, then a timed loop, then a teardown.
package windowbench

import (
	"testing"
	"time"

	"github.com/loopbench/loopbench/internal/measure/valgrind"
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

func loop(b *testing.B, per int) {
	spin(2_000_000) // setup: not counted
	b.ResetTimer()
	for range b.N {
		spin(per)
	}
	b.StopTimer()
	spin(200_000) // teardown: not counted
}

func BenchmarkSpin(b *testing.B)      { loop(b, 100) }
func BenchmarkSpinTwice(b *testing.B) { loop(b, 200) }

// BenchmarkWaits sleeps 10 ms an op natively, as a benchmark that waits on
// timers, and only spins when run to size windows (valgrind.Sizing), as
// such a benchmark does on the virtual clock it is counted by.
func BenchmarkWaits(b *testing.B) {
	for range b.N {
		if valgrind.Sizing() {
			spin(100)
		} else {
			time.Sleep(10 * time.Millisecond)
		}
	}
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
