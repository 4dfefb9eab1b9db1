package main

import (
	"flag"
	"runtime"

	"github.com/loopbench/loopbench/internal/harness/gate"
)

// registerInstructions defines gate's flags of the instructions metric.
func registerInstructions(fs *flag.FlagSet, s *gate.Settings) {
	fs.StringVar(&s.Metric, "metric", "wall", "wall (go test -bench rounds, timed) or instructions (counts under valgrind's callgrind)")
	fs.StringVar(&s.Method, "method", "auto", "instructions: how to count: windows, difference (of two processes per benchmark), or auto")
	fs.IntVar(&s.Repeat, "repeat", 2, "instructions: counts of each benchmark (2 or more)")
	fs.IntVar(&s.MaxRepeat, "max-repeat", 5, "instructions: counts of a benchmark whose counts disagree (on either side)")
	fs.BoolVar(&s.Short, "short", false, "instructions: run the benchmarks with -test.short (loopbench's pull-request set)")
	fs.IntVar(&s.Jobs, "j", runtime.NumCPU(), "instructions: processes under callgrind at once")
	fs.StringVar(&s.MaxSpread, "max-spread", "0.5%", "instructions: the largest spread of a benchmark's repeats that is still deterministic")
	fs.StringVar(&s.Save, "save", "", "instructions: also write head's counts to this file, a later -baseline")
	fs.StringVar(&s.SaveOnly, "save-only", "", "instructions: count head alone and write its counts to this file; no verdict")
	fs.StringVar(&s.Baseline, "baseline", "", "instructions: compare head with this saved file instead of measuring a base revision")
}
