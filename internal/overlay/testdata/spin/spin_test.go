// Package spin has benchmarks in the three shapes whose timed loop the
// overlay's window must count alone, each spinning Per multiply-adds an
// operation: one after a large setup and ResetTimer, one in a B.Loop
// after a large setup, and one that stops its timer for large work in
// every iteration; and Plain, the loop alone.
package spin

import "testing"

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
