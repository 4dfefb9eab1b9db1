// Package spin has benchmarks in the shapes whose timed loop the
// overlay's window must count alone, each spinning Per multiply-adds an
// operation: one after a large setup and ResetTimer, one in a B.Loop
// after a large setup, one that stops its timer for large work in every
// iteration, and a sub-benchmark whose large setup is made on its first
// run only and shared by the later ones (loopbench's bench harness);
// Plain, the loop alone; Draw, whose work an operation is drawn from
// math/rand's global source (seeded from the clock at init), and
// Consume, which draws from it too; and State, which reports what its window starts
// with: the free heap and the memory profile's sampling rate.
package spin

import (
	"math/rand"
	"runtime"
	"runtime/metrics"
	"testing"
	"time"
)

func init() {
	//lint:ignore SA1019 what many benchmarks do
	rand.Seed(time.Now().UnixNano())
}

var sink uint64

//go:noinline
func spin(n int) {
	x := sink
	for range n {
		x = x*6364136223846793005 + 1442695040888963407
	}
	sink = x
}

// Per is each benchmark's work an operation; Large, its setup's.
const (
	Per   = 200
	Large = 2_000_000
)

func BenchmarkPlain(b *testing.B) {
	for range b.N {
		spin(Per)
	}
}

func BenchmarkSetup(b *testing.B) {
	spin(Large)
	b.ResetTimer()
	for range b.N {
		spin(Per)
	}
}

func BenchmarkLoop(b *testing.B) {
	spin(Large)
	for b.Loop() {
		spin(Per)
	}
}

func BenchmarkStopStart(b *testing.B) {
	for range b.N {
		b.StopTimer()
		spin(Large / 100)
		b.StartTimer()
		spin(Per)
	}
}

func BenchmarkShared(b *testing.B) {
	ready := false
	b.Run("case", func(b *testing.B) {
		if !ready {
			spin(Large)
			ready = true
		}
		b.ReportAllocs()
		b.ResetTimer()
		for range b.N {
			spin(Per)
		}
	})
}

func BenchmarkState(b *testing.B) {
	s := []metrics.Sample{{Name: "/memory/classes/heap/free:bytes"}, {Name: "/memory/classes/heap/released:bytes"}}
	metrics.Read(s)
	rate := runtime.MemProfileRate
	for range b.N {
		spin(Per)
	}
	b.ReportMetric(float64(s[0].Value.Uint64()+s[1].Value.Uint64()), "free-heap-bytes")
	b.ReportMetric(float64(rate), "mem-profile-rate")
}

func BenchmarkDraw(b *testing.B) {
	sum := 0
	for range b.N {
		n := rand.Intn(2 * Per)
		spin(n)
		sum += n
	}
	b.ReportMetric(float64(sum), "drawn")
}

func BenchmarkConsume(b *testing.B) {
	for range b.N {
		spin(rand.Intn(2 * Per))
	}
}
