package load

import (
	"runtime"
	"testing"
)

// TestReserveProcs: an open-loop run's reservation raises GOMAXPROCS to
// procsFor, a nested one keeps the larger, and the last to end gives
// back what there was.
func TestReserveProcs(t *testing.T) {
	prev := runtime.GOMAXPROCS(0)
	want := procsFor(prev+9, prev)
	release := reserveProcs(prev + 9)
	if got := runtime.GOMAXPROCS(0); got != want {
		t.Fatalf("GOMAXPROCS during a run of %d connections = %d, want %d", prev+9, got, want)
	}
	inner := reserveProcs(1)
	inner()
	if got := runtime.GOMAXPROCS(0); got != want {
		t.Fatalf("GOMAXPROCS after a nested run ended = %d, want %d (the outer run's)", got, want)
	}
	release()
	if got := runtime.GOMAXPROCS(0); got != prev {
		t.Fatalf("GOMAXPROCS after the run = %d, want %d as before", got, prev)
	}
}
