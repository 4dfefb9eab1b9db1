// Package rounds runs measurements the way loopbench trusts them:
// interleaved, shuffled, seeded rounds. Each of Count rounds measures
// every case once, in an order drawn from the seed and the round (so the
// same seed replays the same orders), with the garbage collected before
// each case, optionally after waiting for a quiet machine, and with the
// machine's state sampled around each round. Measuring a case is the
// caller's: a callback that runs a benchmark in process, a test binary or
// a peer program and writes its result where it belongs. When the context
// ends, Run stops before the next case and returns an *Interrupted error;
// whatever the callbacks wrote stays theirs to report.
//
// The order rule: each round is a permutation of the cases drawn from
// math/rand/v2's PCG seeded with (seed, round); with three or more cases,
// when that permutation would start with the case the previous round
// ended with, its first two places are swapped, so no case runs twice in a
// row across a round boundary. With two cases the permutation is left as
// drawn: forbidding the repeat would fix the order of every round after
// the first (A,B then A,B again), which is the bias the shuffle exists to
// remove.
package rounds

import (
	"context"
	"fmt"
	"math/rand/v2"
	"runtime"
	"time"

	"github.com/loopbench/loopbench/internal/measure/machine"
)

// Config is how Run runs its rounds.
type Config struct {
	Count int    // rounds, at least 1
	Seed  uint64 // of every round's order; the caller records it
	// Stop, when not nil, is asked after each complete round whether the
	// rounds so far are enough (a sequential test that has decided).
	Stop func(rounds int) bool
	// WaitIdle, when positive, is the longest Run waits before each
	// round for other processes to use at most machine.BusyCores,
	// sampling every IdleInterval (default one second).
	WaitIdle     time.Duration
	IdleInterval time.Duration
	// Busy, when not nil, is told of a round that starts on a machine
	// that stayed busy for all of WaitIdle.
	Busy func(round int, s machine.Span)
	// Progress, when not nil, is told of each case before it is measured.
	Progress func(Step)
	// Sample reads the machine's state around each round and during the
	// idle wait; nil is machine.Read. Sleep waits between idle samples; nil
	// is a timer the context cuts short. Collect runs before each case;
	// nil is runtime.GC. Tests replace them.
	Sample  func() (machine.Sample, error)
	Sleep   func(context.Context, time.Duration)
	Collect func()
}

// Step is one measurement about to start.
type Step struct {
	Round int // from 0
	Index int // place in the round, from 0
	Case  int // index of the case in the list Run was given
	Done  int // measurements finished before this one
	Total int // Count × the number of cases
}

// Result is what Run did.
type Result struct {
	Rounds int            // complete rounds
	Done   int            // measurements finished
	Total  int            // Count × the number of cases
	Orders [][]int        // each started round's order, as indices of the cases
	Spans  []machine.Span // the machine over each complete round whose samples could be read
}

// Interrupted is the error of a Run whose context ended: before a case,
// or during one whose callback then failed.
type Interrupted struct {
	Done, Total int // measurements finished, and asked for
	Rounds      int // complete rounds
}

func (e *Interrupted) Error() string {
	return fmt.Sprintf("interrupted after %d of %d measurements", e.Done, e.Total)
}

// Run measures each of cases Count times, one round at a time, calling
// measure for each in the round's order. An error from measure ends Run
// with that error, unless the context has ended, which makes it an
// *Interrupted; a callback that wants the rounds to go on after a failure
// reports it itself and returns nil.
func Run[C any](ctx context.Context, cfg Config, cases []C, measure func(context.Context, Step, C) error) (Result, error) {
	cfg = cfg.withDefaults()
	res := Result{Total: cfg.Count * len(cases)}
	if len(cases) == 0 {
		return res, nil
	}
	var prev []int
	for round := range cfg.Count {
		order := next(cfg.Seed, round, len(cases), prev)
		prev = order
		cfg.waitIdle(ctx, round)
		start, startErr := cfg.Sample()
		res.Orders = append(res.Orders, order)
		for i, ci := range order {
			if ctx.Err() != nil {
				return res, res.interrupted()
			}
			if cfg.Progress != nil {
				cfg.Progress(Step{Round: round, Index: i, Case: ci, Done: res.Done, Total: res.Total})
			}
			cfg.Collect()
			err := measure(ctx, Step{Round: round, Index: i, Case: ci, Done: res.Done, Total: res.Total}, cases[ci])
			if err != nil && ctx.Err() != nil {
				return res, res.interrupted()
			}
			if err != nil {
				return res, err
			}
			res.Done++
		}
		res.Rounds++
		if end, err := cfg.Sample(); startErr == nil && err == nil {
			res.Spans = append(res.Spans, machine.Span{Start: start, End: end})
		}
		if cfg.Stop != nil && cfg.Stop(res.Rounds) {
			break
		}
	}
	return res, nil
}

func (r *Result) interrupted() error {
	return &Interrupted{Done: r.Done, Total: r.Total, Rounds: r.Rounds}
}

func (cfg Config) withDefaults() Config {
	if cfg.IdleInterval <= 0 {
		cfg.IdleInterval = time.Second
	}
	if cfg.Sample == nil {
		cfg.Sample = machine.Read
	}
	if cfg.Sleep == nil {
		cfg.Sleep = sleep
	}
	if cfg.Collect == nil {
		cfg.Collect = runtime.GC
	}
	return cfg
}

// waitIdle waits up to cfg.WaitIdle for a quiet machine before round,
// and tells cfg.Busy when it did not get one. An ended context cuts every
// wait short.
func (cfg Config) waitIdle(ctx context.Context, round int) {
	if cfg.WaitIdle <= 0 || ctx.Err() != nil {
		return
	}
	sample := func() (machine.Sample, error) {
		if err := ctx.Err(); err != nil {
			return machine.Sample{}, err
		}
		return cfg.Sample()
	}
	s, idle, err := machine.WaitIdle(cfg.WaitIdle, cfg.IdleInterval, sample, func(d time.Duration) { cfg.Sleep(ctx, d) })
	if err == nil && !idle && cfg.Busy != nil {
		cfg.Busy(round, s)
	}
}

// sleep waits d or until ctx ends.
func sleep(ctx context.Context, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
	case <-ctx.Done():
	}
}

// Order is round's order of n cases under seed, as Run draws it: the
// indices of the cases, each once.
func Order(seed uint64, round, n int) []int {
	var prev []int
	for r := range round + 1 {
		prev = next(seed, r, n, prev)
	}
	return prev
}

// next draws round's order of n cases, prev being the previous round's.
func next(seed uint64, round, n int, prev []int) []int {
	order := make([]int, n)
	for i := range order {
		order[i] = i
	}
	r := rand.New(rand.NewPCG(seed, uint64(round)))
	r.Shuffle(n, func(i, j int) { order[i], order[j] = order[j], order[i] })
	if n >= 3 && len(prev) > 0 && order[0] == prev[len(prev)-1] {
		order[0], order[1] = order[1], order[0]
	}
	return order
}
