package history

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// The gate's measured A/A spread (docs/gate.md): the deltas of whole-set
// A/As between two counts of identical code. A count is drawn around its
// level within half of it, so that two counts differ by as much as the
// A/As measured; wide draws within all of it, twice the measured.
var (
	instrAA     = [2]float64{-0.0028, 0.0031}
	cyclesAA    = [2]float64{-0.0049, 0.0058}
	instrNoise  = half(instrAA)
	cyclesNoise = half(cyclesAA)
)

func half(aa [2]float64) [2]float64 { return [2]float64{aa[0] / 2, aa[1] / 2} }

// synth is a seeded series of n commits: per benchmark and unit, a level
// that a step may move at commit at, each commit's count moved by a
// draw within the unit's A/A spread and counted twice (repeats within
// 0.01 %), as gate -repeat 2 saves them.
type synth struct {
	h   *History
	rng *rand.Rand
}

func newSynth(seed uint64, n int) *synth {
	s := &synth{h: &History{}, rng: rand.New(rand.NewPCG(seed, 1))}
	for i := range n {
		s.h.Commits = append(s.h.Commits, Commit{Commit: fmt.Sprintf("c%d", i), Files: []string{fmt.Sprintf("c%d.txt", i)}})
	}
	return s
}

// add adds a series of level base, multiplied by 1+step from commit at
// on (at < 0: no step), with noise drawn from spread, at every commit
// but those in skip.
func (s *synth) add(name, unit string, base float64, spread [2]float64, at int, step float64, skip ...int) {
	sr := &Series{Name: name, Unit: unit}
	for i := range s.h.Commits {
		u := spread[0] + (spread[1]-spread[0])*s.rng.Float64()
		if contains(skip, i) {
			continue
		}
		v := base * (1 + u)
		if at >= 0 && i >= at {
			v *= 1 + step
		}
		sr.At = append(sr.At, i)
		sr.Values = append(sr.Values, []float64{v, v * (1 + 1e-4*s.rng.Float64())})
	}
	s.h.Series = append(s.h.Series, sr)
}

// addSyscalls adds a syscalls/op series that flips between lo and lo+1
// at random, as cold-cancel's did in an A/A (29 and 28).
func (s *synth) addSyscalls(name string, lo float64) {
	sr := &Series{Name: name, Unit: "syscalls/op"}
	for i := range s.h.Commits {
		v := lo + float64(s.rng.IntN(2))
		sr.At = append(sr.At, i)
		sr.Values = append(sr.Values, []float64{v, v})
	}
	s.h.Series = append(s.h.Series, sr)
}

func contains(xs []int, x int) bool {
	for _, y := range xs {
		if x == y {
			return true
		}
	}
	return false
}

var defaults = Options{MinEffect: DefaultMinEffect, MinSegment: 1}

// TestDetectTwoSteps: over c0…c7, c3 adds 3 % to one benchmark and c6
// 0.7 % to another, every count moved by the measured A/A noise: exactly
// those two change points, at those commits and benchmarks, with their
// sizes, and nothing in the other benchmarks and units.
func TestDetectTwoSteps(t *testing.T) {
	for seed := uint64(1); seed <= 20; seed++ {
		s := newSynth(seed, 8)
		s.add("Timers/op=schedule-cancel", "instructions/op", 2.1e6, instrNoise, 3, 0.03)
		s.add("Timers/op=schedule-cancel", "est-cycles/op", 2.6e6, cyclesNoise, -1, 0)
		s.add("CallSoon/chain", "instructions/op", 450, instrNoise, 6, 0.007)
		s.add("CallSoon/chain", "est-cycles/op", 600, cyclesNoise, -1, 0)
		s.add("CallSoon/batch", "instructions/op", 120, instrNoise, -1, 0)
		s.addSyscalls("Timers/op=cold-cancel", 28)
		got := Detect(s.h, defaults)
		if len(got) != 2 {
			t.Fatalf("seed %d: %d change points, want 2: %+v", seed, len(got), got)
		}
		want := []struct {
			name  string
			at    int
			delta float64
		}{{"Timers/op=schedule-cancel", 3, 0.03}, {"CallSoon/chain", 6, 0.007}}
		for i, w := range want {
			c := got[i]
			if c.Name != w.name || c.Unit != "instructions/op" || s.h.Commits[c.At].Commit != fmt.Sprintf("c%d", w.at) || math.Abs(c.Delta-w.delta) > 0.004 {
				t.Errorf("seed %d: change %d is %s %s at %s %+.2f%%, want %s at c%d %+.1f%%", seed, i, c.Name, c.Unit, s.h.Commits[c.At].Commit, 100*c.Delta, w.name, w.at, 100*w.delta)
			}
			if c.Before.From != 0 || c.Before.To != w.at-1 || c.After.From != w.at || c.After.To != 7 || !(c.Before.Hi < c.After.Lo) {
				t.Errorf("seed %d: change %d levels %+v → %+v", seed, i, c.Before, c.After)
			}
		}
	}
}

// TestDetectAA: 20 seeded A/A series of eight commits, with the measured
// noise in instructions/op, est-cycles/op and syscalls/op (28 and 29
// calls at random), have no change point at all; nor with noise twice
// the measured.
func TestDetectAA(t *testing.T) {
	for _, wide := range []bool{false, true} {
		for seed := uint64(100); seed < 120; seed++ {
			s := newSynth(seed, 8)
			instr, cycles := instrNoise, cyclesNoise
			if wide {
				instr, cycles = instrAA, cyclesAA
			}
			for _, name := range []string{"A", "B", "C", "D"} {
				s.add(name, "instructions/op", 1e6, instr, -1, 0)
				s.add(name, "est-cycles/op", 1.3e6, cycles, -1, 0)
				s.addSyscalls(name, 28)
			}
			if got := Detect(s.h, defaults); len(got) != 0 {
				t.Errorf("seed %d (wide %v): A/A found %d change points: %+v", seed, wide, len(got), got)
			}
		}
	}
}

// TestDetectMissing: a benchmark missing in some commits is split over
// the commits that hold it, and its change is named at the first of
// them after the step.
func TestDetectMissing(t *testing.T) {
	s := newSynth(7, 8)
	s.add("X", "instructions/op", 1e5, instrNoise, 3, 0.02, 3, 4)
	got := Detect(s.h, defaults)
	if len(got) != 1 || s.h.Commits[got[0].At].Commit != "c5" || got[0].Before.To != 2 || got[0].Before.Commits != 3 || got[0].After.Commits != 3 {
		t.Fatalf("got %+v, want one change at c5 (c3, c4 missing)", got)
	}
}

// TestDetectSingleCommit: one commit holds no change point.
func TestDetectSingleCommit(t *testing.T) {
	s := newSynth(1, 1)
	s.add("X", "instructions/op", 1e5, instrNoise, -1, 0)
	if got := Detect(s.h, defaults); len(got) != 0 {
		t.Fatalf("got %+v", got)
	}
}

// TestDetectSpike: a level that moves up and back is two change points,
// and a step inside the series' own spread (values from process to
// process 2.4 % apart, as the heaps' schedule-cancel) none.
func TestDetectSpike(t *testing.T) {
	s := newSynth(3, 9)
	sr := &Series{Name: "X", Unit: "instructions/op"}
	for i, v := range []float64{100, 100, 100, 103, 103, 103, 100, 100, 100} {
		sr.At, sr.Values = append(sr.At, i), append(sr.Values, []float64{v, v})
	}
	noisy := &Series{Name: "Y", Unit: "instructions/op"}
	for i, v := range []float64{100, 102.4, 100, 102.4, 101, 103.4, 101, 103.4, 101} {
		noisy.At, noisy.Values = append(noisy.At, i), append(noisy.Values, []float64{v})
	}
	s.h.Series = []*Series{sr, noisy}
	got := Detect(s.h, defaults)
	if len(got) != 2 || got[0].At != 3 || got[1].At != 6 || got[0].Delta <= 0 || got[1].Delta >= 0 {
		t.Fatalf("got %+v, want up at 3 and down at 6 in X only", got)
	}
}

// TestDetectMinSegment: with a minimum segment of 2 commits, a step at
// the newest commit is not yet a level.
func TestDetectMinSegment(t *testing.T) {
	s := newSynth(5, 6)
	s.add("X", "instructions/op", 1e5, instrNoise, 5, 0.05)
	if got := Detect(s.h, Options{MinEffect: DefaultMinEffect, MinSegment: 2}); len(got) != 0 {
		t.Fatalf("got %+v", got)
	}
	if got := Detect(s.h, defaults); len(got) != 1 || got[0].At != 5 {
		t.Fatalf("got %+v", got)
	}
}
