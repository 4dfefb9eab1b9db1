package verdict

import (
	"math/rand/v2"
	"testing"
)

// TestUnreachableUndecided: a U test whose sample sizes cannot reach alpha
// whatever the values (3+3 and 1+5 at 0.05, 2+2 at 0.2) is undecided, exit
// 3, whether its sides look alike or far apart; from the smallest sizes
// that can reach it, a test that finds no difference passes (exit 0) and a
// slowdown beyond doubt is a regression (exit 1). The samples are drawn
// with a fixed seed.
func TestUnreachableUndecided(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 3))
	cases := []struct {
		name   string
		n1, n2 int
		slow   float64 // head's factor over base
		alpha  float64
		status Status
		exit   int
	}{
		{"3+3 alike", 3, 3, 1, 0.05, Undecided, ExitUndecided},
		{"3+3 ten times slower", 3, 3, 10, 0.05, Undecided, ExitUndecided},
		{"1+5 alike", 1, 5, 1, 0.05, Undecided, ExitUndecided},
		{"1+5 ten times slower", 1, 5, 10, 0.05, Undecided, ExitUndecided},
		{"2+2 at 0.2", 2, 2, 1, 0.2, Undecided, ExitUndecided},
		{"4+4 alike", 4, 4, 1, 0.05, Same, ExitPass},
		{"4+4 ten times slower", 4, 4, 10, 0.05, Regressed, ExitRegression},
		{"3+3 at 0.2 ten times slower", 3, 3, 10, 0.2, Regressed, ExitRegression},
	}
	for _, c := range cases {
		base := lognormal(r, c.n1, 100, 0.01)
		head := lognormal(r, c.n2, 100*c.slow, 0.01)
		v := Decide([]Pair{{Name: "Hash", Unit: "sec/op", Base: base, Head: head}}, Options{Alpha: c.alpha, MinEffect: 0.05})
		got := v.Comparisons[0]
		if got.Status != c.status || v.Exit() != c.exit {
			t.Errorf("%s: status %v exit %d (%s), want %v exit %d", c.name, got.Status, v.Exit(), got.Note, c.status, c.exit)
		}
		if c.status == Undecided && (v.Need < SamplesFor(c.alpha) || got.Note == "") {
			t.Errorf("%s: need %d, note %q; want %d or more and a note", c.name, v.Need, got.Note, SamplesFor(c.alpha))
		}
	}
}

// TestReachable: 2/C(n1+n2, n1) against the level, at the edges.
func TestReachable(t *testing.T) {
	cases := []struct {
		n1, n2 int
		level  float64
		want   bool
	}{
		{3, 3, 0.05, false}, // 2/20 = 0.1
		{3, 3, 0.1, true},
		{4, 4, 0.05, true},  // 2/70
		{1, 5, 0.05, false}, // 2/6
		{1, 39, 0.05, true}, // 2/40 = 0.05
		{1, 38, 0.05, false},
		{0, 5, 0.5, false},
	}
	for _, c := range cases {
		if got := Reachable(c.n1, c.n2, c.level); got != c.want {
			t.Errorf("Reachable(%d, %d, %g) = %v, want %v", c.n1, c.n2, c.level, got, c.want)
		}
	}
	if n := SamplesFor(0.05); n != 4 {
		t.Errorf("SamplesFor(0.05) = %d, want 4", n)
	}
}

// TestSensitivityNamesTheSamplesNeeded: where a test cannot reach its
// level, the sensitivity line says how many samples a side could: 7 at
// 0.001 (6+6 gives at least 2/924), 4 at 0.05, whatever the values.
func TestSensitivityNamesTheSamplesNeeded(t *testing.T) {
	for _, c := range []struct {
		alpha float64
		n     int
		want  string
	}{
		{0.001, 5, "The tests could not flag every slowdown: Hash sec/op at n=5+5 cannot reach p<0.001; 7+7 samples without ties could."},
		{0.05, 3, "The tests could not flag every slowdown: Hash sec/op at n=3+3 cannot reach p<0.05; 4+4 samples without ties could."},
	} {
		r := rand.New(rand.NewPCG(7, 3))
		v := Decide([]Pair{{Name: "Hash", Unit: "sec/op", Base: lognormal(r, c.n, 100, 0.01), Head: lognormal(r, c.n, 100, 0.01)}}, Options{Alpha: c.alpha, MinEffect: 0.05})
		if got := sensitivityString(v); got != c.want {
			t.Errorf("alpha %g, n=%d: %q, want %q", c.alpha, c.n, got, c.want)
		}
	}
}
