package verdict

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// TestNameCompare: names sort segment by segment, numbers by value.
func TestNameCompare(t *testing.T) {
	want := []string{
		"CallSoon/batch=9",
		"CallSoon/batch=10",
		"CallSoon/batch=100",
		"CallSoon/batch=100/x=1",
		"CallSoon/mode=chain",
		"Timers/p=1000",
		"Timers/p=100000",
		"Timers/p=1000000",
		"Timers2/p=1",
		"TimersX",
	}
	got := slices.Clone(want)
	rand.New(rand.NewPCG(1, 2)).Shuffle(len(got), func(i, j int) { got[i], got[j] = got[j], got[i] })
	slices.SortFunc(got, NameCompare)
	if !slices.Equal(got, want) {
		t.Fatalf("sorted:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	for _, c := range [][2]string{{"a07", "a7"}, {"a7", "a07"}, {"b=1/c", "b=1"}} {
		if NameCompare(c[0], c[1]) == 0 {
			t.Errorf("NameCompare(%q, %q) = 0", c[0], c[1])
		}
	}
}
