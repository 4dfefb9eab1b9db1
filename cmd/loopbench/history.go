package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/loopbench/loopbench/internal/harness/history"
)

const historyUsage = `usage: loopbench history [-format text|json] [-out DIR] [-min-effect P] [-min-segment N] DIR | FILE...

Reads a series of instruction counts saved by gate -metric instructions
-save-only, one file a commit, and finds where each benchmark's counts
changed. FILEs are taken in the order given (consecutive saves of one
commit are pooled); a DIR's files are ordered by the commit-time line
each save records (the commit's committer date; a save without one is
refused: name the files in commit order instead).

For each benchmark and unit the series is split, by circular binary
segmentation, into levels: a run of commits is a new level when its
median and the rest's differ by more than -min-effect (est-cycles/op:
twice it) and no value of the one lies within the range of the other,
every count's repeats included (the step is larger than the spread on
either side); syscalls/op must differ by more than one call per op, the
A/A spread the verdict allows it. Each change point names its first
commit, its size, and the level before and after (median, range, the
commits). The default minimum effect, 0.5%, is above the gate's A/A
spread of instructions/op (-0.28 to +0.31%), and est-cycles/op's 1% above
its (up to +0.58%): A/A series have no change point.

-out DIR (new or empty) also writes history.html and one SVG per
benchmark: its counts over the commits, one panel per unit, the levels
and the change points marked.

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
	switch o.MinEffect, err = parseEffect(*effect); {
	case err != nil:
		return usageError{err.Error()}
	case *format != "text" && *format != "json":
		return usageError{fmt.Sprintf("-format %q: want text or json", *format)}
	case *minSeg < 1:
		return usageError{fmt.Sprintf("-min-segment %d: want at least 1", *minSeg)}
	case fs.NArg() == 0:
		return usageError{"want a directory of saved counts or the saved files in commit order"}
	}
	h, err := readHistory(fs.Args())
	if err != nil {
		return err
	}
	if *out != "" {
		if entries, err := os.ReadDir(*out); err == nil && len(entries) > 0 {
			return usageError{fmt.Sprintf("-out %s exists and is not empty: name a new directory", *out)}
		}
	}
	r := history.Analyze(h, o)
	if *format == "json" {
		err = r.WriteJSON(stdout)
	} else {
		err = r.WriteText(stdout)
	}
	if err == nil && *out != "" {
		if _, err = r.WriteDir(*out); err == nil && *format == "text" {
			fmt.Fprintf(stdout, "page: %s\n", filepath.Join(*out, "history.html"))
		}
	}
	if err != nil {
		return exitError{2, err}
	}
	return nil
}

// readHistory reads one directory, or files in the order given. A path
// that cannot be read is a usage error naming it.
func readHistory(args []string) (*history.History, error) {
	var h *history.History
	var err error
	if fi, serr := os.Stat(args[0]); len(args) == 1 && serr == nil && fi.IsDir() {
		h, err = history.ReadDir(args[0])
	} else {
		for _, a := range args {
			if fi, serr := os.Stat(a); serr == nil && fi.IsDir() {
				return nil, usageError{fmt.Sprintf("%s is a directory: give one directory alone, or files", a)}
			}
		}
		h, err = history.ReadFiles(args)
	}
	var fe *history.FileError
	if errors.As(err, &fe) {
		return nil, usageError{fe.Error()}
	}
	return h, err
}
