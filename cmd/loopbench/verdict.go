package main

import (
	"errors"
	"fmt"
	"strings"

	"github.com/loopbench/loopbench/internal/harness/gate"
	"github.com/loopbench/loopbench/internal/harness/verdict"
	"golang.org/x/perf/benchproc"
)

// verdictFlags are the flags compare and gate share.
type verdictFlags struct {
	alpha              float64
	minEffect          string
	floor              string
	force              bool
	filter             string
	requireEquivalence bool
	format             string
}

// register defines the flags on fs.
func (f *verdictFlags) register(fs interface {
	Float64Var(*float64, string, float64, string)
	StringVar(*string, string, string, string)
	BoolVar(*bool, string, bool, string)
}) {
	fs.Float64Var(&f.alpha, "alpha", 0.05, "family-wise significance level over all the run's comparisons (Holm)")
	fs.StringVar(&f.minEffect, "min-effect", "5%", "smallest change that counts as a regression, a percentage with its % sign (a bare number is refused)")
	fs.StringVar(&f.floor, "floor", "", "noise floors file (from gate -aa -write-floor): a benchmark's minimum effect is the larger of -min-effect and its floor")
	fs.BoolVar(&f.force, "force", false, "compare results from different setups (cpu, goos, goarch, go, kernel, gomaxprocs)")
	fs.StringVar(&f.filter, "filter", "", "use only the results this benchstat filter matches, e.g. '.name:CallSoon' or 'commit:abc123'")
	fs.BoolVar(&f.requireEquivalence, "require-equivalence", false, "exit 3 unless every timed comparison is significant or placed within the minimum effect by its intervals (default: pass what is not a significant regression, printing the smallest slowdown the run could have flagged)")
	fs.StringVar(&f.format, "format", "text", "output: text (a table) or json (one object: each comparison, the exit code, the undecided and set-aside lists)")
}

// options checks the flags and returns the verdict options and the filter.
func (f *verdictFlags) options() (verdict.Options, *benchproc.Filter, error) {
	effect, err := parseEffect(f.minEffect)
	if err != nil {
		return verdict.Options{}, nil, usageError{err.Error()}
	}
	if f.alpha <= 0 || f.alpha >= 1 {
		return verdict.Options{}, nil, usageError{fmt.Sprintf("-alpha %g: want a level between 0 and 1", f.alpha)}
	}
	if f.format != "text" && f.format != "json" {
		return verdict.Options{}, nil, usageError{fmt.Sprintf("-format %q: want text or json", f.format)}
	}
	o := verdict.Options{Alpha: f.alpha, MinEffect: effect, RequireEquivalence: f.requireEquivalence}
	if f.floor != "" {
		if o.Floors, err = verdict.ReadFloors(f.floor); err != nil {
			return o, nil, usageError{fmt.Sprintf("-floor: %v", err)}
		}
	}
	var filter *benchproc.Filter
	if f.filter != "" {
		if filter, err = benchproc.NewFilter(f.filter); err != nil {
			msg, _, _ := strings.Cut(err.Error(), "\n") // benchproc points at the column on more lines
			return o, nil, usageError{fmt.Sprintf("-filter %q: %s", f.filter, msg)}
		}
	}
	return o, filter, nil
}

// judgedExit maps a judgment's error to its exit status: a
// verdict.Failure's own, 3 when an instruction gate counted nothing, and
// 2 for any other (files that cannot be compared, a gate's files that
// cannot be written or calibrated).
func judgedExit(err error) error {
	var f *verdict.Failure
	switch {
	case err == nil:
		return nil
	case errors.As(err, &f):
		return exitError{f.Exit, err}
	case errors.Is(err, gate.ErrNothingCounted):
		return exitError{3, err}
	}
	return exitError{2, err}
}

// jsonExit is the exit status and message of err for a JSON report.
func jsonExit(err error) (int, string) {
	if err == nil {
		return 0, ""
	}
	return exitCode(err), err.Error()
}
