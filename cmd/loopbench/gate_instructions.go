package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime"

	"github.com/loopbench/loopbench/internal/benchdata"
	"github.com/loopbench/loopbench/internal/gate"
)

// instrFlags are gate's flags of the instructions metric.
type instrFlags struct {
	metric, maxSpread, save, baseline string
	repeat, jobs                      int
	spread                            float64
}

func (f *instrFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.metric, "metric", "wall", "wall (go test -bench rounds, timed) or instructions (counts under valgrind's callgrind, see above)")
	fs.IntVar(&f.repeat, "repeat", 2, "instructions: processes per iteration count; repeats that disagree mark a benchmark not deterministic here")
	fs.IntVar(&f.jobs, "j", runtime.NumCPU(), "instructions: processes under callgrind at once (counts do not care about load)")
	fs.StringVar(&f.maxSpread, "max-spread", "0.5%", "instructions: the largest spread of a benchmark's repeats that is still deterministic")
	fs.StringVar(&f.save, "save", "", "instructions: also write head's counts to this file, a later -baseline")
	fs.StringVar(&f.baseline, "baseline", "", "instructions: compare head with this saved file instead of measuring a base revision")
}

func (f *instrFlags) on() bool { return f.metric == "instructions" }

// check validates the flags and sets the instructions metric's defaults:
// -min-effect 1 % and -benchtime 20ms unless given.
func (f *instrFlags) check(g *gateFlags, set map[string]bool) error {
	switch f.metric {
	case "wall":
		for _, name := range []string{"repeat", "j", "max-spread", "save", "baseline"} {
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
	case f.repeat < 1:
		return usageError{fmt.Sprintf("-repeat %d: want at least 1", f.repeat)}
	case f.jobs < 1:
		return usageError{fmt.Sprintf("-j %d: want at least 1", f.jobs)}
	case f.baseline != "" && (set["base"] || g.aa):
		return usageError{"-baseline stands for the base side: drop -base and -aa"}
	case g.writeFloor != "":
		return usageError{"-write-floor applies to wall time: counts need no noise floor"}
	}
	if !set["min-effect"] {
		g.minEffect = "1%"
	}
	if !set["benchtime"] {
		g.benchtime = "20ms"
	}
	return nil
}

// apply sets the gate's configuration for the instructions metric.
func (f *instrFlags) apply(cfg *gate.Config) {
	if !f.on() {
		return
	}
	cfg.Metric = "instructions"
	cfg.Callgrind.Repeat, cfg.Callgrind.Jobs, cfg.Callgrind.MaxSpread = f.repeat, f.jobs, f.spread
	if f.baseline != "" {
		cfg.Baseline, cfg.AA = f.baseline, true // one binary built: head's
	}
}

// finish lists the benchmarks not deterministic here and saves head's
// counts when asked. When no benchmark is deterministic there is nothing
// to judge: exit 3.
func (f *instrFlags) finish(w io.Writer, res *gate.Result) error {
	if n := len(res.Nondeterministic); n > 0 {
		fmt.Fprintf(w, "not deterministic here (%d: repeats differ by more than -max-spread %s; not judged, leave them to -metric wall):\n", n, f.maxSpread)
		for _, x := range res.Nondeterministic {
			fmt.Fprintf(w, "  %s %s spread %.3g%%\n", x.Side, x.Name, 100*x.Spread)
		}
	}
	for _, p := range []string{res.Base.Path, res.Head.Path} {
		if _, err := benchdata.ReadFile(p, nil); errors.Is(err, benchdata.ErrNoResults) {
			return exitError{3, fmt.Errorf("no benchmark is deterministic here (see above): nothing to judge on counts; use -metric wall")}
		}
	}
	if f.save == "" {
		return nil
	}
	b, err := os.ReadFile(res.Head.Path)
	if err == nil {
		err = os.WriteFile(f.save, b, 0o644)
	}
	if err != nil {
		return exitError{2, fmt.Errorf("-save: %w", err)}
	}
	fmt.Fprintf(w, "saved: %s\n", f.save)
	return nil
}

// baseName names the base side: the revision, or the saved baseline.
func baseName(res *gate.Result, g gateFlags) string {
	if g.instr.baseline != "" {
		return "baseline " + g.instr.baseline
	}
	return orTree(res.Base.Rev)
}
