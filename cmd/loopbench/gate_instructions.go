package main

import (
	"flag"
	"fmt"
	"runtime"

	"github.com/loopbench/loopbench/internal/harness/gate"
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
	saveOnly, method                  string
	windowBenchtime                   string // sizes windows when -benchtime is not given
	repeat, maxRepeat, jobs           int
	short                             bool
	spread                            float64
	// defaultEffect: -min-effect was not given, so it follows the
	// counting method (gate.DifferenceEffect for the difference of two
	// processes).
	defaultEffect bool
}

func (f *instrFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.metric, "metric", "wall", "wall (go test -bench rounds, timed) or instructions (counts under valgrind's callgrind, see above)")
	fs.StringVar(&f.method, "method", "auto", "instructions: how to count: windows (the overlay's; exit 2 where the toolchain does not take it), difference (of two processes per benchmark), or auto (windows where the toolchain takes the patch, else difference)")
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
		for _, name := range []string{"repeat", "max-repeat", "short", "j", "max-spread", "save", "save-only", "baseline", "method"} {
			if set[name] {
				return usageError{fmt.Sprintf("-%s applies to -metric instructions", name)}
			}
		}
		return nil
	case "instructions":
	default:
		return usageError{fmt.Sprintf("-metric %q: want wall or instructions", f.metric)}
	}
	switch f.method {
	case "auto", "windows", "difference":
	default:
		return usageError{fmt.Sprintf("-method %q: want auto, windows or difference", f.method)}
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
		// (+0.6 to +0.9 % of a Timers operation); gate.DifferenceEffect by
		// the difference of two processes.
		g.minEffect, f.defaultEffect = "0.5%", true
	}
	if !set["benchtime"] {
		g.benchtime, f.windowBenchtime = "20ms", windowBenchtime
	}
	return nil
}

// apply sets the gate's configuration for the instructions metric;
// minEffect is the verdict's, of windows.
func (f *instrFlags) apply(cfg *gate.Config, minEffect float64) {
	if !f.on() {
		return
	}
	cfg.Metric = "instructions"
	switch f.method {
	case "windows":
		cfg.Method = gate.MethodWindow
	case "difference":
		cfg.Method = gate.MethodDifference
	}
	cfg.Callgrind.Repeat, cfg.Callgrind.Jobs, cfg.Callgrind.MaxSpread = f.repeat, f.jobs, f.spread
	cfg.Callgrind.MaxRepeat, cfg.Short = f.maxRepeat, f.short
	cfg.Callgrind.WindowBenchtime = f.windowBenchtime
	cfg.Callgrind.Widen = gate.Widen
	cfg.Callgrind.Undecided = gate.RangeUndecided(minEffect)
	if f.baseline != "" {
		cfg.Baseline, cfg.AA = f.baseline, true // one binary built: head's
	}
	if f.saveOnly != "" {
		cfg.HeadOnly, cfg.AA = true, true
	}
}
