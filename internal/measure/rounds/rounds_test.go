package rounds

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/loopbench/loopbench/internal/measure/machine"
)

// fakeMachine is a machine whose clock moves a second a sample, busy
// (other processes on a whole core) for the first busyFor samples.
type fakeMachine struct {
	n, busyFor int
	sleeps     int
}

func (m *fakeMachine) sample() (machine.Sample, error) {
	m.n++
	busy := time.Duration(min(m.n, m.busyFor)) * time.Second
	return machine.Sample{At: time.Unix(int64(m.n), 0), Busy: busy, Total: 2 * time.Duration(m.n) * time.Second}, nil
}

func (m *fakeMachine) sleep(context.Context, time.Duration) { m.sleeps++ }

// quiet is a Config that neither sleeps nor reads the real machine.
func quiet(count int, seed uint64) Config {
	m := &fakeMachine{}
	return Config{Count: count, Seed: seed, Sample: m.sample, Sleep: m.sleep, Collect: func() {}}
}

func cases(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = i
	}
	return out
}

// TestOrders: every round is a permutation, every case runs Count times,
// rounds differ, the same seed replays the orders, and Order tells them.
func TestOrders(t *testing.T) {
	const n, count = 10, 8
	runs := make([]int, n)
	var seen [][]int
	res, err := Run(context.Background(), quiet(count, 7), cases(n), func(_ context.Context, s Step, c int) error {
		if s.Index == 0 {
			seen = append(seen, nil)
		}
		seen[s.Round] = append(seen[s.Round], c)
		runs[c]++
		return nil
	})
	if err != nil || res.Rounds != count || res.Done != n*count || res.Total != n*count {
		t.Fatalf("Run = %+v, %v", res, err)
	}
	for c, k := range runs {
		if k != count {
			t.Errorf("case %d ran %d times, want %d", c, k, count)
		}
	}
	for r, o := range seen {
		if !slices.Equal(slices.Sorted(slices.Values(o)), cases(n)) {
			t.Errorf("round %d: %v is not a permutation", r, o)
		}
		if !slices.Equal(o, res.Orders[r]) || !slices.Equal(o, Order(7, r, n)) {
			t.Errorf("round %d ran %v; Orders %v, Order %v", r, o, res.Orders[r], Order(7, r, n))
		}
	}
	if slices.Equal(seen[0], seen[1]) || slices.Equal(seen[0], cases(n)) {
		t.Errorf("round 0 %v, round 1 %v: not drawn", seen[0], seen[1])
	}
	again, _ := Run(context.Background(), quiet(count, 7), cases(n), func(context.Context, Step, int) error { return nil })
	other, _ := Run(context.Background(), quiet(count, 8), cases(n), func(context.Context, Step, int) error { return nil })
	if !slices.EqualFunc(again.Orders, res.Orders, slices.Equal) || slices.EqualFunc(other.Orders, res.Orders, slices.Equal) {
		t.Errorf("seed 7 twice: %v and %v; seed 8: %v", res.Orders, again.Orders, other.Orders)
	}
}

// TestNoRepeatAcrossRounds: with three cases or more, no round starts with
// the case the previous one ended with; with two, the order stays drawn
// (both orders occur, repeats included).
func TestNoRepeatAcrossRounds(t *testing.T) {
	for n := 3; n <= 6; n++ {
		for seed := range uint64(200) {
			var prev []int
			for r := range 12 {
				o := Order(seed, r, n)
				if prev != nil && o[0] == prev[n-1] {
					t.Fatalf("n %d seed %d: round %d %v starts with the end of round %d %v", n, seed, r, o, r-1, prev)
				}
				prev = o
			}
		}
	}
	firsts, repeats := map[int]int{}, 0
	for seed := range uint64(50) {
		for r := 1; r < 12; r++ {
			o, p := Order(seed, r, 2), Order(seed, r-1, 2)
			firsts[o[0]]++
			if o[0] == p[1] {
				repeats++
			}
		}
	}
	if firsts[0] < 100 || firsts[1] < 100 || repeats < 100 {
		t.Errorf("two cases over 550 rounds: first %v, repeats %d: not drawn freely", firsts, repeats)
	}
}

// TestCollectBeforeEachCase: the garbage is collected before every
// measurement, and progress is told of each in order.
func TestCollectBeforeEachCase(t *testing.T) {
	var log []string
	cfg := quiet(2, 1)
	cfg.Collect = func() { log = append(log, "gc") }
	var steps []Step
	cfg.Progress = func(s Step) { steps = append(steps, s) }
	_, err := Run(context.Background(), cfg, cases(3), func(context.Context, Step, int) error {
		log = append(log, "run")
		return nil
	})
	if err != nil || len(log) != 12 {
		t.Fatalf("%v, %v", log, err)
	}
	for i := 0; i < len(log); i += 2 {
		if log[i] != "gc" || log[i+1] != "run" {
			t.Fatalf("log %v: want gc before every run", log)
		}
	}
	for i, s := range steps {
		if s.Done != i || s.Total != 6 || s.Round != i/3 || s.Index != i%3 {
			t.Fatalf("step %d: %+v", i, s)
		}
	}
}

// TestInterruptKeepsMeasured: an interrupt in the middle of a round stops
// before the next case; what was measured is counted, and the round in
// progress is neither complete nor sampled.
func TestInterruptKeepsMeasured(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var ran []int
	res, err := Run(ctx, quiet(3, 5), cases(4), func(_ context.Context, s Step, c int) error {
		ran = append(ran, c)
		if s.Done == 5 {
			cancel()
		}
		return nil
	})
	var in *Interrupted
	if !errors.As(err, &in) || in.Done != 6 || in.Total != 12 || in.Rounds != 1 {
		t.Fatalf("err %v (%+v)", err, in)
	}
	if len(ran) != 6 || res.Done != 6 || res.Rounds != 1 || len(res.Spans) != 1 {
		t.Fatalf("ran %v, result %+v", ran, res)
	}
	if err.Error() != "interrupted after 6 of 12 measurements" {
		t.Fatalf("message %q", err)
	}
}

// TestInterruptedCaseFails: a measurement the interrupt made fail (a
// killed child process) is an interrupt, not a failure, and not counted.
func TestInterruptedCaseFails(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	_, err := Run(ctx, quiet(2, 5), cases(3), func(_ context.Context, s Step, _ int) error {
		if s.Done == 1 {
			cancel()
			return errors.New("signal: killed")
		}
		return nil
	})
	var in *Interrupted
	if !errors.As(err, &in) || in.Done != 1 {
		t.Fatalf("err %v", err)
	}
}

// TestErrorEnds: a failing measurement ends the rounds with its error.
func TestErrorEnds(t *testing.T) {
	boom := errors.New("boom")
	calls := 0
	res, err := Run(context.Background(), quiet(2, 5), cases(3), func(context.Context, Step, int) error {
		if calls++; calls == 2 {
			return boom
		}
		return nil
	})
	if !errors.Is(err, boom) || res.Done != 1 || calls != 2 {
		t.Fatalf("err %v, result %+v, calls %d", err, res, calls)
	}
}

// TestStop: Stop is asked after each round and ends the rounds.
func TestStop(t *testing.T) {
	cfg := quiet(10, 3)
	var asked []int
	cfg.Stop = func(r int) bool { asked = append(asked, r); return r == 2 }
	res, err := Run(context.Background(), cfg, cases(2), func(context.Context, Step, int) error { return nil })
	if err != nil || res.Rounds != 2 || res.Done != 4 || !slices.Equal(asked, []int{1, 2}) {
		t.Fatalf("result %+v, asked %v, %v", res, asked, err)
	}
}

// TestWaitIdle: before each round Run samples the machine until it is
// quiet, and reports a round that starts on a machine busy for all of
// WaitIdle; the wait is the injected Sleep.
func TestWaitIdle(t *testing.T) {
	m := &fakeMachine{busyFor: 7}
	var busy []int
	cfg := Config{Count: 3, Seed: 1, WaitIdle: 3 * time.Second, Sample: m.sample, Sleep: m.sleep, Collect: func() {},
		Busy: func(r int, s machine.Span) { busy = append(busy, r) }}
	res, err := Run(context.Background(), cfg, cases(2), func(context.Context, Step, int) error { return nil })
	if err != nil || res.Rounds != 3 || len(res.Spans) != 3 {
		t.Fatalf("result %+v, %v", res, err)
	}
	// Round 1: three busy spans (samples 1-6), the limit: reported.
	// Round 2: sample 7 and 8 are quiet. Round 3: quiet at once.
	if !slices.Equal(busy, []int{0}) || m.sleeps != 5 {
		t.Fatalf("busy rounds %v, sleeps %d", busy, m.sleeps)
	}
}

// TestWaitIdleInterrupted: an interrupt during the wait ends it at once.
func TestWaitIdleInterrupted(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	m := &fakeMachine{busyFor: 1 << 30}
	cfg := Config{Count: 2, WaitIdle: time.Hour, Sample: m.sample, Collect: func() {},
		Sleep: func(context.Context, time.Duration) { m.sleeps++; cancel() }}
	calls := 0
	_, err := Run(ctx, cfg, cases(2), func(context.Context, Step, int) error { calls++; return nil })
	var in *Interrupted
	if !errors.As(err, &in) || calls != 0 || m.sleeps != 1 || m.n > 3 {
		t.Fatalf("err %v, calls %d, sleeps %d, samples %d", err, calls, m.sleeps, m.n)
	}
}
