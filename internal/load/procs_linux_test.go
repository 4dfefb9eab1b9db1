//go:build linux

package load

import "testing"

// TestProcsFor: on Linux a sleeping connection holds a P, so a run needs
// one per connection and one more, never fewer than it has, at most
// maxPacingProcs.
func TestProcsFor(t *testing.T) {
	for _, c := range []struct{ conns, current, want int }{
		{1, 1, 2}, {10, 1, 11}, {10, 2, 11}, {10, 32, 32}, {1000, 1, maxPacingProcs}, {1000, 512, 512},
	} {
		if got := procsFor(c.conns, c.current); got != c.want {
			t.Errorf("procsFor(%d conns, GOMAXPROCS %d) = %d, want %d", c.conns, c.current, got, c.want)
		}
	}
}
