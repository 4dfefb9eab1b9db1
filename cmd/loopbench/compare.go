package main

import (
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/loopbench/loopbench/internal/harness/verdict"
)

const compareUsage = `usage: loopbench compare [flags] base.txt head.txt

Compares two benchmark results files (benchfmt, as go test -bench,
loopbench run and loopbench gate write them) benchmark by benchmark and
unit by unit, and prints a table per unit, as benchstat: one row per
benchmark, ordered by name (segment by segment, numbers by value:
batch=9 before batch=10), values scaled as benchstat scales them (counts
never below one: an amortised share of an allocation prints as 4.2e-06),
and a geomean row; then every regression on its own line. The verdict is
gate's:

  - allocs/op, B/op and syscalls/op are integers amortised over b.N,
    which carry a share of setup and of the runtime's own work that
    differs between processes: equal medians are equal; medians or
    smallest values less than one allocation (8 B, one system call) per
    op apart are ~; a whole allocation more per op is a regression, and
    B/op counts past -min-effect. syscalls/op, which the runtime's timing
    moves by a stray call a window (one per op in A/As), counts past
    -min-effect when the sides' ranges of repeats lie more than one call
    per op apart, or one call apart with instructions/op moved the same
    way. Never undecided.
  - Units whose Unit line says assume=exact (as gate -metric instructions
    writes) are compared exactly when every value on each side is equal;
    when repeats disagree, on their ranges: a regression when head's
    smallest is above base's largest by more than -min-effect, ~ when
    the ranges lie within it, else undecided. est-cycles/op is judged at
    twice -min-effect: its simulated cache misses follow the runtime's
    time-driven work too, and spread about twice as far as instructions.
    Exactness is never inferred from the values: one timing a side is
    two samples of noise.
  - Every other benchmark and unit takes a Mann-Whitney U test, as
    benchstat, with the family-wise error held at -alpha over all the
    run's tests (Holm-Bonferroni), the p-value never below what the
    sample sizes can reach; a change counts only when it also passes
    -min-effect (or the benchmark's -floor) in the unit's worse
    direction. A test whose sample sizes cannot reach -alpha at all
    (the smallest p of n+m samples, 2/C(n+m,n), is above it: 3+3 or
    1+5 at 0.05) is undecided whatever the values. A change that is not
    significant passes, and the output says the smallest slowdown the
    tests could have flagged; -require-equivalence makes it undecided
    instead unless the intervals place it within -min-effect.

-format json prints one object instead of the table: per comparison the
verdict, rule, centers and ranges in the file's units (sec/op in
seconds, unrounded), delta, p, Holm level, minimum effect, detectable
slowdown and note; the exit code and message; the undecided, set-aside
and one-side lists. Numbers that are not finite are null.

Results are matched as benchstat's tables match them: by name, unit and
the configuration keys both files give, except the keys that name a run
(commit, side, command, date). A file holding several runs (several
commits) is refused: pick one with -filter. Files from different setups
(cpu, goos, goarch, go, kernel, gomaxprocs) are refused unless -force.
Benchmarks found on one side only are listed.

-min-effect takes a percentage with its sign (5%); a bare number is a
usage error.

Exit status: 0 no regression; 1 a regression (also when a file has
malformed lines besides: both are reported, the regression first); 2 a
usage error or nothing to compare (a missing, empty or malformed file, no
benchmark in common, different setups, several runs in one file); 3
undecided: counts whose repeats disagree across the minimum effect,
samples too few for the U test to reach -alpha at all, or, with
-require-equivalence, too few samples to decide at the corrected level,
ties counted (the message says how many would do).

Example:
  loopbench compare -min-effect 5% results/base/raw.txt results/head/raw.txt
  loopbench compare -filter '.name:Timers' base.txt head.txt

Flags:
`

// parseEffect reads a percentage, "5%" or "0.5%". A bare number is
// refused: "5" and "0.05" are both plausible spellings of 5 %, and a wrong
// guess turns every check off or on.
func parseEffect(s string) (float64, error) {
	num, pct := strings.CutSuffix(s, "%")
	v, err := strconv.ParseFloat(num, 64)
	if err != nil || v < 0 || !pct {
		return 0, fmt.Errorf("-min-effect %q: want a percentage with its %% sign, such as 5%%", s)
	}
	return v / 100, nil
}

func runCompare(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("compare", flag.ContinueOnError)
	fs.Usage = func() { fmt.Fprint(stderr, compareUsage); fs.PrintDefaults() }
	var vf verdictFlags
	vf.register(fs)
	if err := parseArgs(fs, args, stderr); err != nil {
		return err
	}
	if fs.NArg() != 2 {
		return usageError{"want two files: base.txt head.txt"}
	}
	o, filter, err := vf.options()
	if err != nil {
		return err
	}
	j, err := verdict.Judge(fs.Arg(0), fs.Arg(1), o, filter, vf.force)
	if err == nil {
		err = j.Err()
	}
	err = judgedExit(err)
	if vf.format == "json" {
		code, msg := jsonExit(err)
		if werr := verdict.NewJSONReport("compare", j, code, msg).Write(stdout); werr != nil {
			return exitError{2, werr}
		}
		return err
	}
	if j != nil {
		j.WriteText(stdout)
	}
	return err
}
