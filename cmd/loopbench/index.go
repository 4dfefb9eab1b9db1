package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/loopbench/loopbench/internal/harness/index"
	"github.com/loopbench/loopbench/internal/harness/report"
)

const indexUsage = `usage: loopbench index [-out FILE] [-docs PATTERNS] [DIR]

Writes a Markdown index of the run directories in DIR (default results):
for each, newest first, the date, the machine, the commit and the command
that produced it, what it holds, the sections of the documents (-docs,
relative to DIR's parent) that cite it, and its report files. Everything
comes from what the run recorded; what it did not is taken from the
directory's name (<date>-<host>-<commit>), marked so. docs/cli.md,
section Index, says what each kind of run records.

Exit status: 0 written; 2 a usage error, a DIR that is missing, is not a
directory, is itself a run, or holds no directory.

Examples:
  loopbench index                          # results/, to stdout
  loopbench index -out results/README.md results

Flags:
`

// indexDocs are the documents whose citations the index lists, by
// default.
const indexDocs = "README.md,docs/*.md"

func runIndex(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("index", flag.ContinueOnError)
	fs.Usage = func() { fmt.Fprint(stderr, indexUsage); fs.PrintDefaults() }
	out := fs.String("out", "", "write the index to this file (default: stdout)")
	docsFlag := fs.String("docs", indexDocs, "comma-separated glob patterns of the documents that cite runs, relative to DIR's parent")
	if err := parseArgs(fs, args, stderr); err != nil {
		return err
	}
	if fs.NArg() > 1 {
		return usageError{fmt.Sprintf("want one results directory, got %d arguments", fs.NArg())}
	}
	dir := "results"
	if fs.NArg() == 1 {
		dir = fs.Arg(0)
	}
	md, err := buildIndex(dir, strings.Split(*docsFlag, ","), nil)
	if err != nil {
		return err
	}
	if *out == "" {
		_, err = stdout.Write(md)
		return err
	}
	return os.WriteFile(*out, md, 0o644)
}

// buildIndex is index.Build with report's reading of sweeps, its refusals
// usage errors. keep, when not nil, chooses the directories of dir the
// index lists, by name (the runs git tracks, for the committed index's
// test).
func buildIndex(dir string, patterns []string, keep func(name string) bool) ([]byte, error) {
	md, err := index.Reader{Sweeps: report.ReadSweeps}.Build(dir, patterns, keep)
	if pe, ok := errors.AsType[*index.PatternError](err); ok {
		return nil, usageError{fmt.Sprintf("-docs %q: %v", pe.Pattern, pe.Err)}
	}
	if _, ok := errors.AsType[*index.InputError](err); ok {
		return nil, usageError{err.Error()}
	}
	return md, err
}
