package load

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/loopbench/loopbench/internal/measure/loadresult"
)

// MaxSweepSteps bounds the steps of a sweep spec: as many as a result
// file holds.
const MaxSweepSteps = loadresult.MaxSteps

// ParseRates reads a sweep spec: a list of rising rates ("2000,4000,8000")
// or geometric steps from a start to an end by a factor
// ("2000:400000:x1.4": 2000, 2800, 3920, ... up to 400000, each rounded
// to a whole req/s). The error names what is wrong in one line.
func ParseRates(spec string) ([]float64, error) {
	bad := func(format string, a ...any) error {
		return fmt.Errorf("-sweep %q: %s", spec, fmt.Sprintf(format, a...))
	}
	if strings.Contains(spec, ":") {
		return parseGeometric(spec, bad)
	}
	var rates []float64
	for _, f := range strings.Split(spec, ",") {
		r, err := strconv.ParseFloat(strings.TrimSpace(f), 64)
		switch {
		case err != nil || math.IsNaN(r) || math.IsInf(r, 0):
			return nil, bad("%q is not a rate: want a list such as 2000,4000,8000 or steps such as 2000:400000:x1.4", f)
		case r <= 0:
			return nil, bad("rate %g: want more than 0 req/s", r)
		case len(rates) > 0 && r <= rates[len(rates)-1]:
			return nil, bad("rate %g after %g: a sweep rises", r, rates[len(rates)-1])
		case len(rates) == MaxSweepSteps:
			return nil, bad("more than %d steps", MaxSweepSteps)
		}
		rates = append(rates, r)
	}
	return rates, nil
}

func parseGeometric(spec string, bad func(string, ...any) error) ([]float64, error) {
	parts := strings.Split(spec, ":")
	if len(parts) != 3 || !strings.HasPrefix(parts[2], "x") {
		return nil, bad("want START:END:xFACTOR, such as 2000:400000:x1.4")
	}
	var v [3]float64
	for i, p := range []string{parts[0], parts[1], parts[2][1:]} {
		f, err := strconv.ParseFloat(p, 64)
		if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
			return nil, bad("%q is not a number", p)
		}
		v[i] = f
	}
	start, end, factor := v[0], v[1], v[2]
	switch {
	case start < 1:
		return nil, bad("start %g: want at least 1 req/s", start)
	case end < start:
		return nil, bad("end %g is below the start %g", end, start)
	case factor <= 1:
		return nil, bad("factor x%g: want more than 1", factor)
	}
	var rates []float64
	for r := start; r <= end*(1+1e-9); r *= factor {
		rounded := math.Round(r)
		if len(rates) > 0 && rounded <= rates[len(rates)-1] {
			continue // factors near 1 at low rates round to the same rate
		}
		if len(rates) == MaxSweepSteps {
			return nil, bad("more than %d steps: raise the factor", MaxSweepSteps)
		}
		rates = append(rates, rounded)
	}
	return rates, nil
}

// SweepConfig describes a sweep: open-loop runs at rising rates.
type SweepConfig struct {
	Run      Config // each step's run; its Rate is the step's
	Rates    []float64
	Criteria Criteria
	// CPUs is the generator's usable CPUs: a step where it kept 90 % of
	// the CPUs its loops can use busy (at most one per loop: Result.Loops)
	// is CPU-bound. 0: never.
	CPUs int
	// StartAt, when set, starts step k at StartAt + k×Period, so that N
	// generators given the same flags step at the same instants.
	StartAt time.Time
	Period  time.Duration // 0: StepPeriod of Run

	run func(context.Context, Config) (loadresult.Result, error) // Run; tests give steps of their own
}

// StepPeriod is the time a step of cfg takes at most: its warmup and
// window, the last requests' timeout, and half a second to open the
// connections.
func StepPeriod(cfg Config) time.Duration {
	return cfg.Warmup + cfg.Duration + cfg.withDefaults().Timeout + 500*time.Millisecond
}

// Step is one step of a sweep.
type Step struct {
	Index   int
	Result  loadresult.Result
	Verdict Verdict
	// StartedLate is how much later than its slot an aligned step
	// started (the previous one overran): its window no longer lines up
	// with other generators'.
	StartedLate time.Duration
	// Remeasured is set when the generator was late in the step's first
	// measurement, and these figures are its second's.
	Remeasured bool
}

// Sweep is a sweep's outcome.
type Sweep struct {
	Steps []Step
	Knee  Knee
	Stop  string // why the sweep ended before its last rate ("" when it ran them all)
	// Interrupted is set when the context ended during step len(Steps)+1
	// (or before it started): that step is left out of Steps and of the
	// knee, its figures covering part of a window at most.
	Interrupted bool
}

// Outcomes are the steps as the knee finder sees them.
func (sw Sweep) Outcomes() []StepOutcome {
	out := make([]StepOutcome, len(sw.Steps))
	for i, s := range sw.Steps {
		out[i] = StepOutcome{Offered: s.Result.Offered, Verdict: s.Verdict}
	}
	return out
}

// FiguresOf are a run's figures for judging, cpus its usable CPUs (of
// which its loops use one each at most: loadresult.Result.CPUBound). The
// CPU it counts leaves the spinning out (SpinFreeCores).
func FiguresOf(rep loadresult.Result, cpus int) Figures {
	rep.CPUs = cpus
	return Figures{
		Offered: rep.Offered, Achieved: rep.Achieved, P99: rep.Corrected.P99, ErrorRate: rep.ErrorRate(),
		PacingLagP99: rep.PacingLag.P99, CPUBound: rep.CPUBound(),
		Concurrency: rep.Concurrency(), Conns: rep.Conns, LatencyP50: rep.Uncorrected.P50,
	}
}

// RunSweep runs the steps in order, calling each after every step,
// until the last rate, until the server fell behind (achieved below
// MinAchieved of offered, or corrected p99 over the SLO) on two steps in
// a row, until a step's errors pass MaxErrors, or until ctx ends (the
// step it ends in is left out: Sweep.Interrupted). A step the generator
// was late in (and not CPU-bound: a wake-up delay of the machine, which
// passes) is measured once more before it counts, unless the sweep is
// aligned to StartAt (a step's slot cannot hold two). It fails when a
// step cannot connect; the sweep so far is returned with the error.
func RunSweep(ctx context.Context, sc SweepConfig, each func(Step)) (Sweep, error) {
	var sw Sweep
	if len(sc.Rates) == 0 {
		return sw, errors.New("a sweep needs at least one rate")
	}
	failed := 0
	for i, rate := range sc.Rates {
		if ctx.Err() != nil {
			sw.interrupt(i, rate)
			break
		}
		st, err := sc.step(ctx, i, rate, sw.Steps)
		if err == nil && st.Verdict.Late && !st.Verdict.CPUBound && sc.StartAt.IsZero() && !st.Result.Interrupted {
			st, err = sc.step(ctx, i, rate, sw.Steps)
			st.Remeasured = true
		}
		if st.Result.Interrupted || err != nil && ctx.Err() != nil {
			sw.interrupt(i, rate)
			break
		}
		if err != nil {
			sw.Knee = FindKnee(sw.Outcomes())
			return sw, fmt.Errorf("step %d (%.0f req/s): %w", i+1, rate, err)
		}
		sw.Steps = append(sw.Steps, st)
		if each != nil {
			each(st)
		}
		if failed = failed + 1; !st.Verdict.Failed() {
			failed = 0
		}
		if stop := stopReason(st, failed, sc.Criteria); stop != "" {
			if i < len(sc.Rates)-1 {
				sw.Stop = stop
			}
			break
		}
	}
	sw.Knee = FindKnee(sw.Outcomes())
	return sw, nil
}

// interrupt ends the sweep in step i, at rate, which is left out.
func (sw *Sweep) interrupt(i int, rate float64) {
	sw.Interrupted = true
	sw.Stop = fmt.Sprintf("interrupted in step %d (%.0f req/s), which is left out", i+1, rate)
}

// step runs and judges step i at rate, after the steps before.
func (sc SweepConfig) step(ctx context.Context, i int, rate float64, before []Step) (Step, error) {
	cfg := sc.Run
	cfg.Rate = rate
	if !sc.StartAt.IsZero() {
		period := sc.Period
		if period == 0 {
			period = StepPeriod(sc.Run)
		}
		cfg.StartAt = sc.StartAt.Add(time.Duration(i) * period)
	}
	run := sc.run
	if run == nil {
		run = Run
	}
	rep, err := run(ctx, cfg)
	if err != nil {
		return Step{}, err
	}
	fig := FiguresOf(rep, sc.CPUs)
	if len(before) > 0 {
		fig.BaseLatencyP50 = before[0].Result.Uncorrected.P50
	}
	st := Step{Index: i, Result: rep, Verdict: sc.Criteria.Judge(fig)}
	if !cfg.StartAt.IsZero() {
		st.StartedLate = max(rep.WindowStart.Sub(cfg.StartAt.Add(cfg.Warmup)), 0)
	}
	return st, nil
}

// stopReason says why the sweep stops after st, or "".
func stopReason(st Step, failed int, c Criteria) string {
	switch {
	case st.Verdict.Errored:
		stop := fmt.Sprintf("errors at %.0f req/s passed %.3g%%", st.Result.Offered, 100*c.MaxErrors)
		if gone := st.Result.ServerWentAway(); gone != "" {
			stop += ": " + gone
		}
		return stop
	case failed >= 2:
		return fmt.Sprintf("the server fell behind on two steps in a row, the last at %.0f req/s", st.Result.Offered)
	}
	return ""
}
