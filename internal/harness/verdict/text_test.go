package verdict

import (
	"strings"
	"testing"
)

// TestEqualIsTyped: a comparison whose values are all one and the same
// is marked Equal, with no note, and left out of the table (counted);
// equal medians over values that differ are neither.
func TestEqualIsTyped(t *testing.T) {
	pairs := []Pair{
		{Name: "Same", Unit: "instructions/op", ExactUnit: true, Base: []float64{100, 100}, Head: []float64{100, 100}},
		{Name: "Allocs", Unit: "allocs/op", Base: []float64{2, 2}, Head: []float64{2, 2}},
		{Name: "Spread", Unit: "allocs/op", Base: []float64{1, 2, 3}, Head: []float64{2, 2, 2}},
		{Name: "Up", Unit: "instructions/op", ExactUnit: true, Base: []float64{100, 100}, Head: []float64{120, 120}},
	}
	o := Options{MinEffect: 0.05}
	v := Decide(pairs, o)
	var equal []string
	for _, c := range v.Comparisons {
		if c.Equal {
			equal = append(equal, c.Name)
		}
		if c.Name != "Spread" && c.Note != "" {
			t.Errorf("%s: note %q, want none beyond the rule", c.Name, c.Note)
		}
	}
	if strings.Join(equal, " ") != "Same Allocs" {
		t.Fatalf("equal: %q, want Same Allocs", equal)
	}
	j := &Judgment{Matched: &Matched{Pairs: pairs, Groups: []string{""}}, Verdict: v, Options: o}
	var b strings.Builder
	j.WriteText(&b)
	out := b.String()
	if strings.Contains(out, "Same ") || strings.Contains(out, "\nAllocs ") || !strings.Contains(out, "Spread ") || !strings.Contains(out, "(2 exactly equal, not shown)") ||
		!strings.Contains(out, "REGRESSION Up instructions/op +20.00% (exact)") {
		t.Fatalf("table:\n%s", out)
	}
	if err := j.Err(); err == nil || err.(*Failure).Exit != ExitRegression {
		t.Fatalf("Err() = %v, want a regression", err)
	}
}
