package callgrind

import "testing"

// TestSpread: (max-min)/|mean|, 0 for fewer than two values and for a
// mean of 0.
func TestSpread(t *testing.T) {
	for _, c := range []struct {
		xs   []float64
		want float64
	}{
		{nil, 0},
		{[]float64{5}, 0},
		{[]float64{1, 3}, 1},
		{[]float64{-1, -3}, 1},
		{[]float64{-1, 1}, 0},
		{[]float64{90, 100, 110}, 0.2},
	} {
		if got := spread(c.xs); got != c.want {
			t.Errorf("spread(%v) = %v, want %v", c.xs, got, c.want)
		}
	}
}
