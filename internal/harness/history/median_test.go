package history

import (
	"slices"
	"testing"
)

// TestMedian: the middle value of an odd count, the mean of the middle
// pair of an even one, and the input left in its order.
func TestMedian(t *testing.T) {
	for _, c := range []struct {
		xs   []float64
		want float64
	}{
		{[]float64{3, 1, 2}, 2},
		{[]float64{4, 1, 3, 2}, 2.5},
		{[]float64{7}, 7},
	} {
		in := slices.Clone(c.xs)
		if got := median(c.xs); got != c.want || !slices.Equal(c.xs, in) {
			t.Errorf("median(%v) = %v, input now %v; want %v, input unchanged", in, got, c.xs, c.want)
		}
	}
}
