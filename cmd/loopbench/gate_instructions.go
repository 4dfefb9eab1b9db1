package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime"
	"strings"

	"github.com/loopbench/loopbench/internal/benchdata"
	"github.com/loopbench/loopbench/internal/callgrind"
	"github.com/loopbench/loopbench/internal/gate"
	"github.com/loopbench/loopbench/internal/verdict"
)

// windowBenchtime is the instructions metric's default -benchtime: the
// native time whose iterations size a window. A window's count per op
// does not need a second of work to repeat, only enough operations that
// a preemption (about 1000 instructions) is a small share: 2 ms of native
// work is a few million instructions.
const windowBenchtime = "2ms"

// instrFlags are gate's flags of the instructions metric.
type instrFlags struct {
	metric, maxSpread, save, baseline string
	saveOnly                          string
	windowBenchtime                   string // sizes windows when -benchtime is not given
	repeat, maxRepeat, jobs           int
	short                             bool
	spread                            float64
	// defaultEffect: -min-effect was not given, so it follows the
	// counting method (differenceEffect for the difference of two
	// processes).
	defaultEffect bool
}

// differenceEffect is the default minimum effect of counts taken by the
// difference of two processes: their A/A spread reaches 0.97 % (a whole
// process's start, init and exit inside the difference), where a
// window's stays within 0.3 %.
const differenceEffect = 0.01

func (f *instrFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.metric, "metric", "wall", "wall (go test -bench rounds, timed) or instructions (counts under valgrind's callgrind, see above)")
	fs.IntVar(&f.repeat, "repeat", 2, "instructions: counts of each benchmark (2 or more: one count cannot show that counts disagree)")
	fs.IntVar(&f.maxRepeat, "max-repeat", 5, "instructions: counts of a benchmark whose counts disagree (on either side), judged on their ranges")
	fs.BoolVar(&f.short, "short", false, "instructions: run the benchmarks with -test.short (loopbench's pull-request set: no 10⁶ sizes, no Go runtime baselines)")
	fs.IntVar(&f.jobs, "j", runtime.NumCPU(), "instructions: processes under callgrind at once (counts do not care about load)")
	fs.StringVar(&f.maxSpread, "max-spread", "0.5%", "instructions: the largest spread of a benchmark's repeats that is still deterministic")
	fs.StringVar(&f.save, "save", "", "instructions: also write head's counts to this file, a later -baseline")
	fs.StringVar(&f.saveOnly, "save-only", "", "instructions: count head alone and write its counts to this file, a later -baseline; no base side, no verdict (what a push to main saves)")
	fs.StringVar(&f.baseline, "baseline", "", "instructions: compare head with this saved file instead of measuring a base revision")
}

func (f *instrFlags) on() bool { return f.metric == "instructions" }

// check validates the flags and sets the instructions metric's defaults:
// -min-effect 0.5 % and -benchtime unless given: 20ms for the difference
// of two processes, windowBenchtime for windows.
func (f *instrFlags) check(g *gateFlags, set map[string]bool) error {
	switch f.metric {
	case "wall":
		for _, name := range []string{"repeat", "max-repeat", "short", "j", "max-spread", "save", "save-only", "baseline"} {
			if set[name] {
				return usageError{fmt.Sprintf("-%s applies to -metric instructions", name)}
			}
		}
		return nil
	case "instructions":
	default:
		return usageError{fmt.Sprintf("-metric %q: want wall or instructions", f.metric)}
	}
	var err error
	if f.spread, err = parseEffect(f.maxSpread); err != nil {
		return usageError{fmt.Sprintf("-max-spread %q: want a percentage such as 0.5%%", f.maxSpread)}
	}
	switch {
	case f.repeat < 2:
		return usageError{fmt.Sprintf("-repeat %d: want at least 2: a single count cannot show that a benchmark's counts disagree", f.repeat)}
	case f.maxRepeat < f.repeat:
		return usageError{fmt.Sprintf("-max-repeat %d: want at least -repeat (%d)", f.maxRepeat, f.repeat)}
	case f.jobs < 1:
		return usageError{fmt.Sprintf("-j %d: want at least 1", f.jobs)}
	case f.baseline != "" && (set["base"] || g.aa):
		return usageError{"-baseline stands for the base side: drop -base and -aa"}
	case f.saveOnly != "" && (set["base"] || g.aa || f.baseline != "" || f.save != ""):
		return usageError{"-save-only counts head alone: drop -base, -aa, -baseline and -save"}
	case g.writeFloor != "":
		return usageError{"-write-floor applies to wall time: counts need no noise floor"}
	}
	if !set["min-effect"] {
		// Well above the A/A deltas of windows without sysmon (0.26 %
		// at most, 0.02 % on most), below a multiply-add in CallLater
		// (+0.6 to +0.9 % of a Timers operation); differenceEffect by
		// the difference of two processes (effect).
		g.minEffect, f.defaultEffect = "0.5%", true
	}
	if !set["benchtime"] {
		g.benchtime, f.windowBenchtime = "20ms", windowBenchtime
	}
	return nil
}

// effect is the minimum effect of a run that counted by method: the
// flag's, or the method's default.
func (f *instrFlags) effect(o float64, method string) float64 {
	if f.on() && f.defaultEffect && method == gate.MethodDifference {
		return differenceEffect
	}
	return o
}

// apply sets the gate's configuration for the instructions metric;
// minEffect is the verdict's, of windows.
func (f *instrFlags) apply(cfg *gate.Config, minEffect float64) {
	if !f.on() {
		return
	}
	cfg.Metric = "instructions"
	cfg.Callgrind.Repeat, cfg.Callgrind.Jobs, cfg.Callgrind.MaxSpread = f.repeat, f.jobs, f.spread
	cfg.Callgrind.MaxRepeat, cfg.Short = f.maxRepeat, f.short
	cfg.Callgrind.WindowBenchtime = f.windowBenchtime
	cfg.Callgrind.Widen = gate.Widen
	cfg.Callgrind.Undecided = rangeUndecided(minEffect)
	if f.baseline != "" {
		cfg.Baseline, cfg.AA = f.baseline, true // one binary built: head's
	}
	if f.saveOnly != "" {
		cfg.HeadOnly, cfg.AA = true, true
	}
}

// header prints what an instruction gate compared and how it counted.
func (f *instrFlags) header(w io.Writer, g gateFlags, res *gate.Result) {
	if f.saveOnly != "" {
		fmt.Fprintf(w, "gate: head %s (%s) counted alone for -save-only, instructions under callgrind of -bench %q\n", orTree(res.Head.Rev), short(res.Head.Commit), g.bench)
		fmt.Fprintf(w, "files: %s\n\n", res.Head.Path)
		return
	}
	set := "full set"
	if f.short {
		set = "-short set"
	}
	benchtime := g.benchtime
	if res.Method == gate.MethodWindow && f.windowBenchtime != "" {
		benchtime = f.windowBenchtime
	}
	fmt.Fprintf(w, "gate: base %s (%s) vs head %s (%s), instructions under callgrind of -bench %q (%s), counts sized by -benchtime %s, %d repeats (up to %d where they disagree)\n",
		baseName(res, g), short(res.Base.Commit), orTree(res.Head.Rev), short(res.Head.Commit), g.bench, set, benchtime, f.repeat, f.maxRepeat)
	how := "each benchmark's timed loop, by client requests of its harness or of the testing package patched by the gate's overlay (--instr-atstart=no)"
	if res.Method == gate.MethodDifference {
		how = "the difference of two processes per benchmark (a binary issues no client requests)"
	}
	fmt.Fprintf(w, "counted: %s; simulated caches %s\n", how, strings.Join(callgrind.Flags[3:], " "))
	fmt.Fprintf(w, "files: %s, %s, %s\n\n", res.Base.Path, res.Head.Path, res.GatePath)
}

// finish lists the benchmarks widened, those not counted and those
// whose counts disagree here, and saves head's counts when asked. When no benchmark was
// counted there is nothing to judge: exit 3.
func (f *instrFlags) finish(w io.Writer, res *gate.Result) error {
	if n := len(res.Widened); n > 0 {
		fmt.Fprintf(w, "widened (%d: repeats that still disagreed after -max-repeat counts, or sides the range rule could not tell apart; counted again on every side at %d times the iterations, judged on those counts alone):\n", n, gate.Widen)
		for _, x := range res.Widened {
			fmt.Fprintf(w, "  %s at %d iterations\n", x.Name, x.Iters)
		}
	}
	printNotCounted(w, res.NotCounted)
	if f.saveOnly != "" {
		return f.saveHead(w, res, f.saveOnly)
	}
	if n := len(res.Nondeterministic); n > 0 {
		fmt.Fprintf(w, "counts that disagree (%d: repeats differ by more than -max-spread %s after up to -max-repeat %d counts; judged on their ranges):\n", n, f.maxSpread, f.maxRepeat)
		for _, x := range res.Nondeterministic {
			fmt.Fprintf(w, "  %s %s spread %.3g%%\n", x.Side, x.Name, 100*x.Spread)
		}
	}
	for _, p := range []string{res.Base.Path, res.Head.Path} {
		if _, err := benchdata.ReadFile(p, nil); errors.Is(err, benchdata.ErrNoResults) {
			return exitError{3, fmt.Errorf("no benchmark was counted: nothing to judge on counts; use -metric wall")}
		}
	}
	if f.save == "" {
		return nil
	}
	return f.saveHead(w, res, f.save)
}

// printNotCounted lists the benchmarks the harness skipped when listed,
// under each reason it gave: not counted, not judged.
func printNotCounted(w io.Writer, skipped []callgrind.Skipped) {
	if len(skipped) == 0 {
		return
	}
	fmt.Fprintf(w, "not counted (%d: skipped by the benchmarks' harness when listed; not judged):\n", len(skipped))
	var reasons []string
	names := map[string][]string{}
	for _, s := range skipped {
		if _, ok := names[s.Reason]; !ok {
			reasons = append(reasons, s.Reason)
		}
		names[s.Reason] = append(names[s.Reason], s.Name)
	}
	for _, r := range reasons {
		label := r
		if label == "" {
			label = "no reason given"
		}
		fmt.Fprintf(w, "  %s (%d):\n", label, len(names[r]))
		for _, n := range names[r] {
			fmt.Fprintf(w, "    %s\n", n)
		}
	}
}

// saveHead copies head's counts to path.
func (f *instrFlags) saveHead(w io.Writer, res *gate.Result, path string) error {
	b, err := os.ReadFile(res.Head.Path)
	if err == nil {
		_, err = benchdata.ReadFile(res.Head.Path, nil)
	}
	if err == nil {
		err = os.WriteFile(path, b, 0o644)
	}
	if err != nil {
		return exitError{2, fmt.Errorf("saving head's counts: %w", err)}
	}
	fmt.Fprintf(w, "saved: %s\n", path)
	return nil
}

// done says the gate ends after finish: -save-only judges nothing.
func (f *instrFlags) done() bool { return f.saveOnly != "" }

// baseName names the base side: the revision, or the saved baseline.
func baseName(res *gate.Result, g gateFlags) string {
	if g.instr.baseline != "" {
		return "baseline " + g.instr.baseline
	}
	return orTree(res.Base.Rev)
}

// rangeUndecided says two sides' window counts are undecided by the
// verdict's range rule at minEffect, in instructions/op or in
// est-cycles/op (at its own minimum effect): the gate then counts them
// again at wider windows. One side alone is never undecided.
func rangeUndecided(minEffect float64) func([][]callgrind.Counts) bool {
	return func(sides [][]callgrind.Counts) bool {
		if len(sides) != 2 {
			return false
		}
		for _, u := range []struct {
			unit string
			of   func(callgrind.Counts) float64
		}{{"instructions/op", func(c callgrind.Counts) float64 { return c.Ir }}, {verdict.EstCyclesUnit, callgrind.Counts.EstCycles}} {
			var vals [2][]float64
			for i, side := range sides {
				for _, c := range side {
					vals[i] = append(vals[i], u.of(c))
				}
			}
			if verdict.RangeUndecided(vals[0], vals[1], verdict.UnitMinEffect(u.unit, minEffect)) {
				return true
			}
		}
		return false
	}
}
