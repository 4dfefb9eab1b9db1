package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"
)

const compareUsage = `usage: loopbench compare [flags] base.txt head.txt

Compares two benchmark results files (benchfmt, as go test -bench,
loopbench run and loopbench gate write them) benchmark by benchmark and
unit by unit, and prints one table row per comparison and every regression
on its own line at the end. The verdict is gate's:

  - Samples that are deterministic (every value equal on each side, as
    allocs/op and usually B/op) are compared exactly: equal is unchanged,
    any increase of allocs/op is a regression.
  - Every other benchmark and unit takes a Mann-Whitney U test, as
    benchstat, with the family-wise error held at -alpha over all the
    run's tests (Holm-Bonferroni), and a change counts only when it also
    passes -min-effect (or the benchmark's -floor) in the unit's worse
    direction.

Results are matched as benchstat's tables match them: by name, unit and
the configuration keys both files give, except the keys that name a run
(commit, side, command, date). A file holding several runs (several
commits) is refused: pick one with -filter. Files from different setups
(cpu, goos, goarch, go, kernel, gomaxprocs) are refused unless -force.
Benchmarks found on one side only are listed.

Exit status: 0 no regression; 1 a regression; 2 a usage error or nothing
to compare (a missing, empty or malformed file, no benchmark in common,
different setups, several runs in one file); 3 too few samples to decide
at the corrected level (the message says how many would do).

Example:
  loopbench compare -min-effect 5% results/base/raw.txt results/head/raw.txt
  loopbench compare -filter '.name:Timers' base.txt head.txt

Flags:
`

// parseEffect reads "5%" or "0.05".
func parseEffect(s string) (float64, error) {
	pct := strings.HasSuffix(s, "%")
	v, err := strconv.ParseFloat(strings.TrimSuffix(s, "%"), 64)
	if err != nil || v < 0 {
		return 0, fmt.Errorf("-min-effect %q: want a percentage such as 5%%", s)
	}
	if pct {
		v /= 100
	}
	return v, nil
}

func runCompare(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("compare", flag.ContinueOnError)
	fs.Usage = func() { fmt.Fprint(stderr, compareUsage); fs.PrintDefaults() }
	var vf verdictFlags
	vf.register(fs)
	fs.SetOutput(stderr)
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return usageError{err.Error()}
	}
	if fs.NArg() != 2 {
		return usageError{"want two files: base.txt head.txt"}
	}
	o, filter, err := vf.options()
	if err != nil {
		return err
	}
	_, err = judge(stdout, fs.Arg(0), fs.Arg(1), o, filter, vf.force)
	return err
}
