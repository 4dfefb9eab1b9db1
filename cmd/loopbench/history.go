package main

import (
	"flag"
	"fmt"
	"io"

	"github.com/loopbench/loopbench/internal/harness/history"
	"github.com/loopbench/loopbench/internal/harness/verdict"
)

const historyUsage = `usage: loopbench history [-format text|json] [-out DIR] [-min-effect P] [-min-segment N] DIR | FILE...

Reads a series of instruction counts saved by gate -metric instructions
-save-only, one file a commit, and names where each benchmark's counts
changed: the first commit of each new level, its size, the levels before
and after. FILEs are taken in the order given; a DIR's files by the
commit-time line each save records. The method is in
docs/gate.md#history-of-saved-counts.

Exit status: 0 whether or not changes were found (the output says
which); 2 a usage error, or a file that cannot be read (one line naming
it).

Examples:
  loopbench history nightly-counts/
  loopbench history -format json c1.txt c2.txt c3.txt
  loopbench history -out history-page nightly-counts/

Flags:
`

func runHistory(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("history", flag.ContinueOnError)
	fs.Usage = func() { fmt.Fprint(stderr, historyUsage); fs.PrintDefaults() }
	format := fs.String("format", "text", "output: text or json (one object: the commits, each change point, the benchmarks some commits lack)")
	out := fs.String("out", "", "also write history.html and one SVG per benchmark to this new or empty directory")
	effect := fs.String("min-effect", "0.5%", "smallest change of a level that counts, a percentage with its % sign (est-cycles/op: twice it)")
	minSeg := fs.Int("min-segment", 1, "fewest commits a level holds (1: a change at the newest commit is named at once)")
	if err := parseArgs(fs, args, stderr); err != nil {
		return err
	}
	o := history.Options{MinSegment: *minSeg}
	var err error
	switch o.MinEffect, err = verdict.ParseEffect(*effect); {
	case err != nil:
		return usageError{err.Error()}
	case *format != "text" && *format != "json":
		return usageError{fmt.Sprintf("-format %q: want text or json", *format)}
	case *minSeg < 1:
		return usageError{fmt.Sprintf("-min-segment %d: want at least 1", *minSeg)}
	case fs.NArg() == 0:
		return usageError{"want a directory of saved counts or the saved files in commit order"}
	}
	h, err := history.Read(fs.Args())
	if err != nil {
		return usageError{err.Error()}
	}
	if err := refuseNonEmpty(*out); err != nil {
		return err
	}
	if err := history.Analyze(h, o).Write(stdout, *format, *out); err != nil {
		return exitError{2, err}
	}
	return nil
}
