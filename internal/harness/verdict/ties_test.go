package verdict

import (
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
)

// TestOneSampleIsNotExact: one timing a side (go test -bench's default)
// is two samples of noise, not an exact measurement: a 30 % change is
// undecided, with the samples that would do, never an exact regression.
// Units exact by nature still decide from one sample.
func TestOneSampleIsNotExact(t *testing.T) {
	pairs := []Pair{
		{Name: "T", Unit: "sec/op", Base: []float64{1e-6}, Head: []float64{1.3e-6}},
		{Name: "T", Unit: "allocs/op", Base: []float64{2}, Head: []float64{3}},
		{Name: "T", Unit: "instructions/op", ExactUnit: true, Base: []float64{100}, Head: []float64{110}},
	}
	v := Decide(pairs, Options{MinEffect: 0.05, RequireEquivalence: true})
	want := []struct {
		exact  bool
		status Status
	}{{false, Undecided}, {true, Regressed}, {true, Regressed}}
	for i, c := range v.Comparisons {
		if c.Exact != want[i].exact || c.Status != want[i].status {
			t.Errorf("%s: exact %v status %v, want exact %v status %v", c.Unit, c.Exact, c.Status, want[i].exact, want[i].status)
		}
	}
	if v.Need < 2 || MinP(v.Need, v.Need) > 0.05 {
		t.Fatalf("need %d samples a side", v.Need)
	}
}

// TestTiesUndecided: base 1,1,1,2,2 against head 2,2,2,2,2 (an integer
// metric that doubled) cannot reach p < 0.05 whatever the order, since
// the five 2s cannot be ranked: the no-ties bound (p = 0.008 at 5+5)
// called this "~" and passed it. It is undecided, and the hint counts
// the ties.
func TestTiesUndecided(t *testing.T) {
	p := Pair{Name: "N", Unit: "events/op", Base: []float64{1, 1, 1, 2, 2}, Head: []float64{2, 2, 2, 2, 2}}
	if MinP(5, 5) > 0.05 {
		t.Fatal("the example needs a no-ties bound under alpha")
	}
	reach := ReachableP(p.Base, p.Head)
	if reach <= 0.05 {
		t.Fatalf("ReachableP = %g, want above 0.05", reach)
	}
	v := Decide([]Pair{p}, Options{MinEffect: 0.05, RequireEquivalence: true})
	if c := v.Comparisons[0]; c.Status != Undecided || v.Exit() != ExitUndecided {
		t.Fatalf("status %v (p %g, note %q), want undecided", c.Status, c.P, c.Note)
	}
	n := v.Need
	if n <= 5 || ReachableP(cycle(p.Base, n), cycle(p.Head, n)) > 0.05 || ReachableP(cycle(p.Base, n-1), cycle(p.Head, n-1)) <= 0.05 {
		t.Fatalf("need %d a side: not the smallest that reaches 0.05 with these ties", n)
	}
	if n <= SamplesFor(0.05) {
		t.Fatalf("ties need more samples than the no-ties %d, got %d", SamplesFor(0.05), n)
	}
}

// TestReachablePWithoutTies is MinP when no value repeats.
func TestReachablePWithoutTies(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, n := range []int{3, 5, 8} {
		a, b := lognormal(r, n, 10, 0.2), lognormal(r, n, 10, 0.2)
		if got, want := ReachableP(a, b), MinP(n, n); math.Abs(got-want) > 1e-9*want {
			t.Errorf("n=%d: ReachableP %g, MinP %g", n, got, want)
		}
	}
}

// TestAAFloor: the floor is an upper quantile of the resampled A/A
// delta, so over many simulated A/A runs a fresh A/A delta passes the
// floor about 5 % of the time; twice one A/A delta is too low far more
// often. Too few samples are refused.
func TestAAFloor(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	const runs = 400
	overFloor, overTwice := 0, 0
	for i := range runs {
		a, b := lognormal(r, 10, 100, 0.1), lognormal(r, 10, 100, 0.1)
		floor, err := AAFloor(a, b, uint64(i))
		if err != nil {
			t.Fatal(err)
		}
		x, y := lognormal(r, 10, 100, 0.1), lognormal(r, 10, 100, 0.1)
		d := math.Abs(median(y)/median(x) - 1)
		if d > floor {
			overFloor++
		}
		if d > 2*math.Abs(median(b)/median(a)-1) {
			overTwice++
		}
	}
	t.Logf("%d A/A runs: a fresh delta passes the bootstrap floor %d times, twice one delta %d times", runs, overFloor, overTwice)
	if overFloor > runs/10 || overTwice < 2*overFloor {
		t.Fatalf("fresh delta over the floor in %d of %d runs, over twice one delta in %d", overFloor, runs, overTwice)
	}
	if _, err := AAFloor([]float64{1, 2, 3}, []float64{1, 2, 3}, 1); err == nil {
		t.Fatal("a floor from 3 samples a side was accepted")
	}
}

// TestFloorsKeyedByGroup: a floor under one configuration group does not
// apply to the same name in another; a file of the old three-field format
// is refused with one line.
func TestFloorsKeyedByGroup(t *testing.T) {
	dir := t.TempDir()
	f := Floors{}
	f.Set("gomaxprocs=1", "X", "sec/op", 0.2)
	f.Set("", "Y", "sec/op", 0.1)
	path := filepath.Join(dir, "floors.txt")
	file, _ := os.Create(path)
	if err := f.Write(file, "test"); err != nil {
		t.Fatal(err)
	}
	file.Close()
	got, err := ReadFloors(path)
	if err != nil {
		t.Fatal(err)
	}
	if got.Get("gomaxprocs=1", "X", "sec/op") != 0.2 || got.Get("gomaxprocs=2", "X", "sec/op") != 0 || got.Get("", "Y", "sec/op") != 0.1 {
		t.Fatalf("floors read back: %v", got)
	}
	old := filepath.Join(dir, "old.txt")
	os.WriteFile(old, []byte("X\tsec/op\t12%\n"), 0o644)
	if _, err := ReadFloors(old); err == nil {
		t.Fatal("a three-field floors line was accepted")
	}
}
