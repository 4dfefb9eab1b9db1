package main

import (
	"flag"
	"fmt"
	"io"

	"github.com/loopbench/loopbench/internal/harness/load"
	"github.com/loopbench/loopbench/internal/measure/loadresult"
)

const mergeUsage = `usage: loopbench merge [-format table|benchfmt|json] [-force] [-out FILE] [-hgrm FILE] FILE...

Merges the results of N load generators run against one server (each
written by 'loopbench load -out FILE'; a file may hold other lines around
its results, such as a pod's log): requests and rates summed, latency
percentiles from the merged HDR histograms (never an average of
percentiles), and a table per generator. Sweeps are merged step by step
and the knee found on the merged curve. What is refused, what is warned
of and how series merge: docs/cli.md, section Load from many hosts.

Exit status: 0 merged; 2 a usage error, a refusal (the same file or
result twice, different labels or message sizes, windows that do not
overlap: -force merges them anyway, with a warning), or a file that is
missing, has no result or a malformed one (named, in one line; the other
files are still merged and printed).

Flags:
`

func runMerge(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("merge", flag.ContinueOnError)
	fs.Usage = func() { fmt.Fprint(stderr, mergeUsage); fs.PrintDefaults() }
	var o mergeOptions
	fs.StringVar(&o.format, "format", "table", "output: table, benchfmt or json")
	fs.BoolVar(&o.force, "force", false, "merge what merge refuses (the same file twice, different runs, windows apart), with a warning")
	fs.StringVar(&o.hgrm, "hgrm", "", "write the merged corrected latency histogram to this file in HdrHistogram's percentile-distribution format (.hgrm, in ms); not for sweeps")
	fs.StringVar(&o.out, "out", "", "write the merged result (a line per step of sweeps), with its series when the generators' line up, as load -out writes one")
	if err := parseArgs(fs, args, stderr); err != nil {
		return err
	}
	if err := checkFormat(o.format); err != nil {
		return err
	}
	if fs.NArg() == 0 {
		return usageError{"no result files given"}
	}
	refusals := loadresult.SameFiles(fs.Args())
	var all []loadresult.Result
	var bad error
	for _, name := range fs.Args() {
		rs, err := loadresult.ReadFile(name)
		all = append(all, rs...)
		if err != nil && bad == nil {
			bad = err
		} else if err != nil {
			fmt.Fprintf(stderr, "loopbench merge: %v\n", err)
		}
	}
	if len(all) > 0 {
		if err := mergeAll(all, refusals, o, stdout, stderr); err != nil {
			return err
		}
	}
	if bad != nil {
		return usageError{bad.Error()}
	}
	return nil
}

// mergeOptions are merge's flags.
type mergeOptions struct {
	format    string
	force     bool
	hgrm, out string // -hgrm, -out: "" none
}

// mergeAll merges the results, single runs or sweeps, and writes them;
// a refusal is a usage error unless forced.
func mergeAll(all []loadresult.Result, refusals []string, o mergeOptions, stdout, stderr io.Writer) error {
	sweep, err := load.IsSweep(all)
	if err != nil {
		return usageError{err.Error()}
	}
	if sweep && o.hgrm != "" {
		return usageError{"-hgrm holds one run's histogram: not with sweeps (-out holds each merged step's)"}
	}
	var warnings []string
	var write func() error
	var merged []loadresult.Merged // one, or a step's each
	if sweep {
		ms, err := load.MergeSweeps(all)
		if err != nil {
			return usageError{err.Error()}
		}
		refusals, warnings, merged = append(refusals, ms.Refusals...), ms.Warnings, ms.Results()
		write = func() error { return load.WriteMergedSweep(stdout, o.format, ms) }
	} else {
		m, err := loadresult.MergeGenerators(all)
		if err != nil {
			return err
		}
		refusals, warnings, merged = append(refusals, m.Refusals...), m.Warnings, []loadresult.Merged{m}
		write = func() error {
			switch o.format {
			case "json":
				return loadresult.WriteJSON(stdout, m.MergeJSON())
			case "benchfmt":
				return loadresult.WriteMergedBenchfmt(stdout, m)
			}
			return loadresult.WriteMergedTable(stdout, m)
		}
	}
	if err := loadresult.CheckRefusals(stderr, refusals, warnings, o.force); err != nil {
		return usageError{err.Error()}
	}
	if err := write(); err != nil {
		return err
	}
	return loadresult.WriteMergedFiles(stderr, merged, o.hgrm, o.out)
}
