package main

import (
	"errors"
	"flag"

	"github.com/loopbench/loopbench/internal/harness/gate"
	"github.com/loopbench/loopbench/internal/harness/verdict"
)

// registerVerdict defines the flags compare and gate share on fs.
func registerVerdict(fs *flag.FlagSet, s *verdict.Settings) {
	fs.Float64Var(&s.Alpha, "alpha", 0.05, "family-wise significance level over all the run's comparisons (Holm)")
	fs.StringVar(&s.MinEffect, "min-effect", "5%", "smallest change that counts as a regression, a percentage with its % sign")
	fs.StringVar(&s.Floor, "floor", "", "noise floors file (from gate -aa -write-floor)")
	fs.BoolVar(&s.Force, "force", false, "compare results from different setups (cpu, goos, goarch, go, kernel, gomaxprocs)")
	fs.StringVar(&s.Filter, "filter", "", "use only the results this benchstat filter matches, e.g. '.name:CallSoon'")
	fs.BoolVar(&s.RequireEquivalence, "require-equivalence", false, "exit 3 unless every timed comparison is significant or within the minimum effect")
	fs.StringVar(&s.Format, "format", "text", "output: text (tables) or json (one object)")
}

// judgedExit maps a judgment's error to its exit status: a
// verdict.Failure's own, 3 when an instruction gate counted nothing, and
// 2 for any other (files that cannot be compared, a gate that could not
// finish, or whose files cannot be written or calibrated).
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
