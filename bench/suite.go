package bench

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/loopbench/loopbench"
	"github.com/loopbench/loopbench/internal/measure/rounds"
	"github.com/loopbench/loopbench/selectors"
)

// Case is one benchmark of the matrix: Workload/Variant/Params is its
// sub-benchmark name, and Setup prepares it (a loop with 10⁶ timers,
// socketpairs, connected clients) and returns the operation to time and
// what to close afterwards. go test and the CLI run the same cases.
type Case struct {
	Workload string // one of Workloads
	Variant  string // Config.String(), or impl=<baseline>, or ready=<queue> for the bare queues
	Params   string // key=value segments, "/"-separated
	Setup    func() (run func(t Timer, n int) error, cleanup func(), err error)
}

// Shuffle returns round's order of cases as loopbench run measures them
// (internal/measure/rounds.Order): a permutation drawn from seed and round, so
// that a run's order can be replayed from its recorded seed. Measured in
// one fixed order, a case always follows the same one and pays for what
// it leaves (garbage, cache state).
func Shuffle(cases []Case, seed uint64, round int) []Case {
	out := make([]Case, len(cases))
	for i, j := range rounds.Order(seed, round, len(cases)) {
		out[i] = cases[j]
	}
	return out
}

// Name is the sub-benchmark name: Variant/Params.
func (c Case) Name() string {
	if c.Params == "" {
		return c.Variant
	}
	return c.Variant + "/" + c.Params
}

// workloads are the workloads, in the order the matrix runs them: each
// one's name and the function that adds its cases. Workloads, CheckWorkload
// and Cases read this list.
var workloads = []struct {
	name  string
	cases func(o Options, add func(Case))
}{
	{"CallSoon", callSoonCases},
	{"ReadyQueue", readyQueueCases},
	{"RunOnce", runOnceCases},
	{"Timers", timerCases},
	{"IOChain", ioChainCases},
	{"Echo", echoCases},
	{"UDPEcho", udpEchoCases},
	{"Signal", signalCases},
	{"Subprocess", subprocessCases},
	{"Await", awaitCases},
	{"Coordination", coordinationCases},
	{"Wakeup", wakeupCases},
}

// Workloads are the workload names, in the order the matrix runs them.
var Workloads = func() []string {
	names := make([]string, len(workloads))
	for i, w := range workloads {
		names[i] = w.name
	}
	return names
}()

// CheckWorkload returns nil if name is one of Workloads, and otherwise an
// error that names it and lists the valid ones.
func CheckWorkload(name string) error {
	if slices.Contains(Workloads, name) {
		return nil
	}
	return fmt.Errorf("unknown workload %q (valid: %s)", name, strings.Join(Workloads, ", "))
}

// Options select the matrix.
type Options struct {
	Variants  []loopbench.Config // nil: every variant (see Every)
	Workloads []string           // nil: all
	Quick     bool               // fewer sizes, for a short pass
	// Every runs every workload on every variant. Without it a workload
	// runs on the variants that differ in the part it exercises, the other
	// parts at their defaults, which is a quarter of the time or less.
	Every bool
	// Short is the pull-request set: without the cases sized 10⁶ and the
	// Go runtime's baselines (impl=...), which a change of loopbench
	// cannot make slower and which take most of the time, and without
	// Wakeup, whose work is waiting on the real clock (see nightlyOnly).
	Short bool
}

// Cases returns the matrix: each workload on every variant (o.Every) or on
// the variants that differ in the part it exercises, the other parts at
// their defaults (CallSoon: every variant; Timers: the heaps; IOChain and
// Echo: the selectors; Await and Coordination: the ready queues), timers in both cancel
// modes, restricted to o.Variants when given, plus the baselines.
func Cases(o Options) []Case {
	var cs []Case
	add := func(c Case) { cs = append(cs, c) }
	for _, w := range workloads {
		if o.Workloads == nil || slices.Contains(o.Workloads, w.name) {
			w.cases(o, add)
		}
	}
	if o.Short {
		cs = slices.DeleteFunc(cs, nightlyOnly)
	}
	return cs
}

// variants returns the configs of o.Variants (or all) whose parts other
// than the varied ones are at the default, with extra applied.
func variants(o Options, vary func(loopbench.Config) loopbench.Config) []loopbench.Config {
	if o.Every {
		vary = func(c loopbench.Config) loopbench.Config { return c }
	}
	var out []loopbench.Config
	seen := map[string]bool{}
	for _, v := range loopbench.Variants() {
		c := vary(v)
		if seen[c.String()] {
			continue
		}
		seen[c.String()] = true
		if o.Variants == nil || slices.ContainsFunc(o.Variants, func(x loopbench.Config) bool { return x.String() == c.String() }) {
			out = append(out, c)
		}
	}
	return out
}

// onLoop is a Setup that makes a loop for cfg, prepares it with prep, and
// closes both afterwards.
func onLoop(cfg loopbench.Config, prep func(l *loopbench.Loop) (func(Timer, int) error, func(), error)) func() (func(Timer, int) error, func(), error) {
	return func() (func(Timer, int) error, func(), error) {
		l, err := loopbench.New(cfg)
		if err != nil {
			return nil, nil, err
		}
		run, cleanup, err := prep(l)
		if err != nil {
			l.Close()
			return nil, nil, err
		}
		return run, func() {
			if cleanup != nil {
				cleanup()
			}
			l.Close()
		}, nil
	}
}

// cold is the Setup of a from-cold case: it draws the delays, so that
// they are drawn outside any counted window.
func cold(run func(Timer, int) error) func() (func(Timer, int) error, func(), error) {
	return func() (func(Timer, int) error, func(), error) { drawColdDelays(); return run, nil, nil }
}

// plain is a Setup with nothing to prepare.
func plain(run func(Timer, int) error) func() (func(Timer, int) error, func(), error) {
	return func() (func(Timer, int) error, func(), error) { return run, nil, nil }
}

// Skippable reports whether err means the case cannot run on this machine
// (too few fds, or an fd beyond what select handles) rather than failed.
func Skippable(err error) bool {
	return errors.Is(err, ErrFdLimit) || errors.Is(err, selectors.ErrFdTooLarge)
}
