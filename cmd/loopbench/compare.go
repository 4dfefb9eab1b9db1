package main

import (
	"flag"
	"fmt"
	"io"

	"github.com/loopbench/loopbench/internal/harness/verdict"
)

const compareUsage = `usage: loopbench compare [flags] base.txt head.txt

Compares two benchmark results files (benchfmt: go test -bench, loopbench
run and gate write it) benchmark by benchmark and unit by unit, with
gate's verdict, and prints a table per unit as benchstat does, then each
regression. The rules (amortised units, exact counts, the U test with
Holm over the run) are in docs/cli.md#compare; their error rates in
docs/gate.md.

Exit status: 0 no regression; 1 a regression; 2 a usage error or nothing
to compare (a missing, empty or malformed file, no benchmark in common,
different setups, several runs in one file); 3 undecided.

Example:
  loopbench compare -min-effect 5% results/base/raw.txt results/head/raw.txt
  loopbench compare -filter '.name:Timers' base.txt head.txt

Flags:
`

func runCompare(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("compare", flag.ContinueOnError)
	fs.Usage = func() { fmt.Fprint(stderr, compareUsage); fs.PrintDefaults() }
	var vs verdict.Settings
	registerVerdict(fs, &vs)
	if err := parseArgs(fs, args, stderr); err != nil {
		return err
	}
	if fs.NArg() != 2 {
		return usageError{"want two files: base.txt head.txt"}
	}
	o, filter, err := vs.Options()
	if err != nil {
		return usageError{err.Error()}
	}
	j, err := verdict.Judge(fs.Arg(0), fs.Arg(1), o, filter, vs.Force)
	if err == nil {
		err = j.Err()
	}
	err = judgedExit(err)
	if vs.Format == "json" {
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
