package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/loopbench/loopbench"
	"github.com/loopbench/loopbench/bench"
	"github.com/loopbench/loopbench/internal/harness/report"
	"github.com/loopbench/loopbench/internal/harness/runner"
	"github.com/loopbench/loopbench/internal/measure/loadresult"
	"github.com/loopbench/loopbench/internal/measure/machine"
)

// measure is bench.Measure; tests replace it with a deterministic stub.
var measure = bench.Measure

// readMachine samples the machine's state around each round; tests
// replace it.
var readMachine = machine.Read

// runConfig is what the run subcommand was asked to do.
type runConfig struct {
	cfg   runner.Config
	opts  bench.Options
	out   string
	args  []string // the command line, recorded in raw.txt
	quick bool
}

const runUsage = `usage: loopbench run [flags]

Runs the workloads on the variants of this machine, interleaved: each of
-count rounds is one pass over every case in an order drawn at random
from -seed, the garbage collected before each measurement. Each workload
runs on the variants that differ in the part it exercises (-all: on
every variant). Writes DIR/raw.txt (benchfmt, with the machine and the
command), then the report of loopbench report, and prints its tables:
median ± 95 % interval and ratio to the default variant. Ctrl-C stops
after the current case and still reports what was measured; a second
Ctrl-C exits at once. Progress goes to stderr. The method: docs/
benchmarks.md; the flags: docs/cli.md, section Run.

Exit status: 0 done; 1 a case failed, the run was interrupted, or the
report could not be written; 2 a usage error, or an -out that is not
empty.

Examples:
  loopbench run -quick
  loopbench run -workloads IOChain,Echo -count 10
  loopbench run -variants ready=deque/selector=poll,ready=ringbuffer

Flags:
`

func parseRun(args []string, stderr io.Writer) (runConfig, error) {
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	fs.Usage = func() { fmt.Fprint(stderr, runUsage); fs.PrintDefaults() }
	quick := fs.Bool("quick", false, "a short pass: fewer sizes, -count 3, -benchtime 100ms unless given (no confidence intervals: 6 rounds are needed; about 3.5 minutes on 2 cores)")
	rc := runConfig{args: args}
	fs.IntVar(&rc.cfg.Count, "count", 6, "rounds over every case (3 with -quick); 6 or more give 95% confidence intervals")
	fs.DurationVar(&rc.cfg.Benchtime, "benchtime", 200*time.Millisecond, "time per measurement (100ms with -quick)")
	variants := fs.String("variants", "", "comma-separated variants (as 'loopbench list' prints them); default: all")
	workloads := fs.String("workloads", "", "comma-separated workloads: "+strings.Join(bench.Workloads, ", ")+"; default: all")
	fs.StringVar(&rc.out, "out", "", "results directory, new or empty (default results/<date>-<host>-<commit>, with -2, -3... when taken)")
	all := fs.Bool("all", false, "every workload on every variant (about four times longer)")
	fs.Uint64Var(&rc.cfg.Seed, "seed", 0, "seed of each round's case order (default: from the clock; raw.txt records it)")
	fs.DurationVar(&rc.cfg.WaitIdle, "wait-idle", 0, "before each round, wait up to this long for other processes to use under 0.2 cores (0: do not wait)")
	if err := parseFlags(fs, args, stderr); err != nil {
		return runConfig{}, err
	}
	set := given(fs)
	rc.opts, rc.quick = bench.Options{Quick: *quick, Every: *all}, *quick
	if !set["seed"] {
		rc.cfg.Seed = uint64(time.Now().UnixNano())
	}
	switch {
	case rc.cfg.Count < 1:
		return runConfig{}, usageError{fmt.Sprintf("-count %d: want at least 1 round", rc.cfg.Count)}
	case rc.cfg.Benchtime <= 0:
		return runConfig{}, usageError{fmt.Sprintf("-benchtime %v: want a positive duration", rc.cfg.Benchtime)}
	case rc.cfg.WaitIdle < 0:
		return runConfig{}, usageError{fmt.Sprintf("-wait-idle %v: want a duration of 0 or more", rc.cfg.WaitIdle)}
	}
	if *quick && !set["count"] {
		rc.cfg.Count = 3
	}
	if *quick && !set["benchtime"] {
		rc.cfg.Benchtime = 100 * time.Millisecond
	}
	if err := rc.parseCases(*variants, *workloads); err != nil {
		return runConfig{}, err
	}
	return rc, nil
}

// parseCases checks -variants, -workloads and -out.
func (rc *runConfig) parseCases(variants, workloads string) error {
	for _, v := range splitList(variants) {
		cfg, err := loopbench.ParseVariant(v)
		if err != nil {
			return usageError{strings.TrimPrefix(err.Error(), "loopbench: ")}
		}
		rc.opts.Variants = append(rc.opts.Variants, cfg)
		rc.opts.Every = true
	}
	for _, w := range splitList(workloads) {
		if err := bench.CheckWorkload(w); err != nil {
			return usageError{err.Error()}
		}
		rc.opts.Workloads = append(rc.opts.Workloads, w)
	}
	if rc.out == "" {
		rc.out = newDir(filepath.Join("results", machine.RunName(time.Now())))
	} else if err := report.CheckDir(rc.out, nil); err != nil {
		return usageError{"-out " + err.Error()}
	}
	return nil
}

// writeRawHeader writes raw.txt's configuration lines: the machine's,
// the command line and the seed of its order.
func writeRawHeader(w io.Writer, cmd string, args []string, seed uint64) {
	machine.WriteRunConfig(w)
	fmt.Fprintf(w, "command: loopbench %s %s\nseed: %d\n", cmd, strings.Join(runner.QuoteArgs(args), " "), seed)
}

func splitList(s string) []string {
	var out []string
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out
}

func runRun(args []string, stdout, stderr io.Writer) error {
	rc, err := parseRun(args, stderr)
	if err != nil {
		return err
	}
	cases := bench.Cases(rc.opts)
	if len(cases) == 0 {
		return usageError{"no case matches the -variants and -workloads given"}
	}
	if err := os.MkdirAll(rc.out, 0o755); err != nil {
		return err
	}
	stderr = &lockedWriter{w: stderr} // the heartbeat writes beside the run
	fmt.Fprintln(stderr, "loopbench run: "+runner.Plan(len(cases), rc.cfg.Count, rc.cfg.Benchtime))
	if n := rc.cfg.Count; rc.quick && n < 6 {
		give := map[bool]string{true: "gives", false: "give"}[n == 1]
		fmt.Fprintf(stderr, "loopbench run: -quick: %s %s no confidence intervals (6 are needed); use it to try things, not to decide\n", loadresult.Plural(n, "round"), give)
	}
	ctx, stop := interruptContext(measuring)
	defer stop()
	progress := runner.NewProgress(stderr, isTerminal(stderr), len(cases), rc.cfg.Count, time.Now)
	progress.Start(newTicks())
	rc.cfg.Measure, rc.cfg.Sample, rc.cfg.Log = measure, readMachine, stderr
	raw := filepath.Join(rc.out, "raw.txt")
	runErr, err := rc.cfg.WriteFile(ctx, raw, func(w io.Writer) {
		writeRawHeader(w, "run", rc.args, rc.cfg.Seed)
	}, cases, progress)
	if err != nil {
		return err
	}
	fmt.Fprintf(stderr, "results: %s\n", rc.out)
	repErr := writeReport(stdout, stderr, []string{raw}, rc.out, nil, "loopbench run", report.Layout{})
	if runErr != nil {
		return runErr
	}
	return repErr
}
