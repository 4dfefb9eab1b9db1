package verdict

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"testing"
	"time"

	"github.com/loopbench/loopbench/internal/sys/raceflag"
)

// sequence simulates one sequential gate: k benchmarks whose samples come
// from draw(i, round), looked at on Looks(minN, maxN) at LookAlpha. It
// returns whether any look alarmed, the rounds used and the last verdict.
func sequence(k, minN, maxN int, alpha, minEffect float64, draw func(i int, head bool) float64) (alarm bool, rounds int, v *Verdict) {
	looks := Looks(minN, maxN)
	level := LookAlpha(alpha, len(looks))
	pairs := make([]Pair, k)
	for i := range pairs {
		pairs[i] = Pair{Name: fmt.Sprintf("B%d", i), Unit: "sec/op", Better: -1}
	}
	for _, n := range looks {
		for i := range pairs {
			for len(pairs[i].Base) < n {
				pairs[i].Base = append(pairs[i].Base, draw(i, false))
				pairs[i].Head = append(pairs[i].Head, draw(i, true))
			}
		}
		v = Decide(pairs, Options{Alpha: level, MinEffect: minEffect})
		if v.Count(Regressed)+v.Count(Improved) > 0 {
			alarm = true
		}
		rounds = n
		if len(v.Undecided()) == 0 {
			break
		}
	}
	return alarm, rounds, v
}

// mixedNoise: most benchmarks quiet (1 %), one in seven noisy (30 %
// lognormal), as on a shared runner.
func mixedNoise(r *rand.Rand, k int) []float64 {
	s := make([]float64, k)
	for i := range s {
		s[i] = 0.01
		if i%7 == 0 {
			s[i] = 0.3
		}
	}
	return s
}

// TestSequentialFamilyWise: simulated A/A sequences of 150 benchmarks,
// looked at after 10, 20 and 40 rounds, stopping once every benchmark is
// decided: the sequences with any false alarm at any look are at most
// alpha. (1000 sequences; 100 under -short or in a 32-bit build, and 20
// under the race detector, which slows this one goroutine's arithmetic
// tenfold and finds nothing in it: those runs check the arithmetic, not
// the statistics, and .ci/run runs the full count natively.)
func TestSequentialFamilyWise(t *testing.T) {
	runs := 1000
	switch {
	case raceflag.Enabled:
		runs = 20
	case testing.Short() || strconv.IntSize == 32:
		runs = 100
	}
	start := time.Now()
	r := rand.New(rand.NewPCG(31, 41))
	const k, alpha = 150, 0.05
	sigma := mixedNoise(r, k)
	alarms, rounds := 0, 0
	for range runs {
		alarm, n, _ := sequence(k, 10, 40, alpha, 0.05, func(i int, _ bool) float64 { return 100 * (1 + sigma[i]*r.NormFloat64()) })
		if alarm {
			alarms++
		}
		rounds += n
	}
	rate := float64(alarms) / float64(runs)
	t.Logf("%d A/A sequences: %d with a false alarm (%.3f), mean rounds %.1f (%v)", runs, alarms, rate, float64(rounds)/float64(runs), time.Since(start))
	if rate > alpha {
		t.Fatalf("family-wise false alarms over all looks %.3f > alpha %g", rate, alpha)
	}
}

// TestSequentialDetects: one benchmark 10 % slower with 2 % noise among
// 149 unchanged: caught in at least 95 of 100 sequences, stopping before
// the last look on average when the rest are quiet.
func TestSequentialDetects(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 9))
	const k = 150
	caught, rounds := 0, 0
	for range 100 {
		_, n, v := sequence(k, 10, 40, 0.05, 0.05, func(i int, head bool) float64 {
			if i == k-1 {
				if head {
					return 110 * (1 + 0.02*r.NormFloat64())
				}
				return 100 * (1 + 0.02*r.NormFloat64())
			}
			return 100 * (1 + 0.005*r.NormFloat64())
		})
		for _, c := range v.Regressions() {
			if c.Name == fmt.Sprintf("B%d", k-1) {
				caught++
			}
		}
		rounds += n
	}
	t.Logf("caught in %d of 100, mean rounds %.1f", caught, float64(rounds)/100)
	if caught < 95 || rounds/100 >= 40 {
		t.Fatalf("caught in %d of 100 sequences, mean rounds %d", caught, rounds/100)
	}
}

// TestLooks: doubling from the first look, ending at the last.
func TestLooks(t *testing.T) {
	if got := fmt.Sprint(Looks(10, 60)); got != "[10 20 40 60]" {
		t.Fatalf("Looks(10, 60) = %s", got)
	}
	if LookAlpha(0.05, 4) != 0.0125 {
		t.Fatal("LookAlpha")
	}
}

// wallGate simulates one sequential wall-time gate of one benchmark as
// the gate runs it (-count 60 -min-count 10): per round, sec/op with
// multiplicative noise of sigma (normal), head slower by slowdown, and
// B/op and allocs/op as a benchmark that allocates nothing per op
// reports them at a short -benchtime: mostly 0, now and then a runtime
// allocation amortised over b.N. It returns the verdict at the look it
// stopped at.
func wallGate(r *rand.Rand, sigma, slowdown float64) (*Verdict, int) {
	pairs := []Pair{{Name: "T", Unit: "sec/op"}, {Name: "T", Unit: "B/op"}, {Name: "T", Unit: "allocs/op"}}
	round := func(p *Pair, head bool) float64 {
		switch p.Unit {
		case "B/op":
			if r.IntN(10) == 0 {
				return float64(1 + r.IntN(200))
			}
			return 0
		case "allocs/op":
			if r.IntN(20) == 0 {
				return 1
			}
			return 0
		}
		x := 100e-9 * (1 + sigma*r.NormFloat64())
		if head {
			x *= 1 + slowdown
		}
		return x
	}
	looks := Looks(10, 60)
	o := Options{Alpha: LookAlpha(0.05, len(looks)), MinEffect: 0.05}
	var v *Verdict
	for _, n := range looks {
		for i := range pairs {
			for len(pairs[i].Base) < n {
				pairs[i].Base = append(pairs[i].Base, round(&pairs[i], false))
				pairs[i].Head = append(pairs[i].Head, round(&pairs[i], true))
			}
		}
		if v = Decide(pairs, o); len(v.Undecided()) == 0 {
			return v, n
		}
	}
	return v, looks[len(looks)-1]
}

// TestWallGateAAPassesAndCatches: 20 simulated A/A gates with ±10-14 %
// noise per round pass (exit 0) in at least 19, B/op and allocs/op
// never undecided; a 10 % slowdown is caught (exit 1) in at least 18 of
// 20. The samples are synthetic and seeded: no machine noise.
func TestWallGateAAPassesAndCatches(t *testing.T) {
	passed, caught := 0, 0
	for seed := range uint64(20) {
		r := rand.New(rand.NewPCG(seed, 42))
		sigma := 0.10 + 0.04*r.Float64()
		v, rounds := wallGate(r, sigma, 0)
		if v.Exit() == ExitPass {
			passed++
		}
		for _, c := range v.Comparisons {
			if c.Unit != "sec/op" && c.Status == Undecided {
				t.Errorf("seed %d: %s undecided (%s)", seed, c.Unit, c.Note)
			}
		}
		d, _ := v.Sensitivity()
		t.Logf("seed %d A/A: sigma %.3f, exit %d after %d rounds, detectable %.1f%%", seed, sigma, v.Exit(), rounds, 100*d)
		v, rounds = wallGate(r, sigma, 0.10)
		if v.Exit() == ExitRegression && v.Comparisons[0].Status == Regressed {
			caught++
		}
		t.Logf("seed %d +10%%: exit %d after %d rounds", seed, v.Exit(), rounds)
	}
	t.Logf("A/A passed %d of 20, 10%% slowdown caught %d of 20", passed, caught)
	if passed < 19 || caught < 18 {
		t.Fatalf("A/A passed %d of 20 (want >= 19), 10%% slowdown caught %d of 20 (want >= 18)", passed, caught)
	}
}
