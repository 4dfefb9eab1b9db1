package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/loopbench/loopbench"
	"github.com/loopbench/loopbench/bench"
	"github.com/loopbench/loopbench/internal/harness/machine"
	"github.com/loopbench/loopbench/internal/harness/rounds"
)

// measure is bench.Measure; tests replace it with a deterministic stub.
var measure = bench.Measure

// runConfig is what the run subcommand was asked to do.
type runConfig struct {
	opts      bench.Options
	count     int
	benchtime time.Duration
	out       string
	args      []string // the command line, recorded in raw.txt
	quick     bool
	seed      uint64        // of the case order of each round, recorded in raw.txt
	waitIdle  time.Duration // the longest wait for a quiet machine before a round; 0: none
}

const runUsage = `usage: loopbench run [flags]

Runs the workloads on the variants of this machine, interleaved: each of
-count rounds is one pass over every case, in an order drawn at random per
round from -seed (recorded in raw.txt; a round never starts with the case
the previous one ended with), with the garbage collected before each
measurement as go test does, so that no case pays for another's garbage
or always follows the same one. By default each workload runs on
the variants that differ in the part it exercises (CallSoon on all of
them, Timers per heap, IOChain and Echo per selector, Await per ready
queue); -all, or -variants, runs every workload on every (selected)
variant. Writes the raw results in benchfmt to DIR/raw.txt (with the
machine and the command as configuration lines), then the report of
loopbench report on it (summary.md, SVG plots, report.html), and prints
its tables: per workload and unit, one row per case and one column per
variant, each cell the median over the rounds ± the 95 % confidence
interval of the median and its ratio to the default variant. Ctrl-C
stops after the current case and still reports what was measured, marked
interrupted in raw.txt and summary.md; a second Ctrl-C exits at once.

Progress goes to stderr: on a terminal a line rewritten at each
measurement; elsewhere (a CI log) a line every 30 s saying how many
measurements are done and left, the time elapsed and the time left,
estimated from what the measurements took so far (setup, calibration
and timed loops, each case at its own measured cost) and corrected as
they complete.

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
	count := fs.Int("count", 6, "rounds over every case (3 with -quick); 6 or more give 95% confidence intervals")
	benchtime := fs.Duration("benchtime", 200*time.Millisecond, "time per measurement (100ms with -quick)")
	variants := fs.String("variants", "", "comma-separated variants (as 'loopbench list' prints them); default: all")
	workloads := fs.String("workloads", "", "comma-separated workloads: "+strings.Join(bench.Workloads, ", ")+"; default: all")
	out := fs.String("out", "", "results directory, new or empty (default results/<date>-<host>-<commit>, with -2, -3... when taken)")
	all := fs.Bool("all", false, "every workload on every variant (about four times longer)")
	seed := fs.Uint64("seed", 0, "seed of each round's case order (default: from the clock; raw.txt records it)")
	waitIdle := fs.Duration("wait-idle", 0, "before each round, wait up to this long for other processes to use under 0.2 cores (0: do not wait)")
	if err := parseFlags(fs, args, stderr); err != nil {
		return runConfig{}, err
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	rc := runConfig{opts: bench.Options{Quick: *quick, Every: *all}, count: *count, benchtime: *benchtime, out: *out, args: args, quick: *quick, seed: *seed, waitIdle: *waitIdle}
	if !set["seed"] {
		rc.seed = uint64(time.Now().UnixNano())
	}
	switch {
	case rc.count < 1:
		return runConfig{}, usageError{fmt.Sprintf("-count %d: want at least 1 round", rc.count)}
	case rc.benchtime <= 0:
		return runConfig{}, usageError{fmt.Sprintf("-benchtime %v: want a positive duration", rc.benchtime)}
	case rc.waitIdle < 0:
		return runConfig{}, usageError{fmt.Sprintf("-wait-idle %v: want a duration of 0 or more", rc.waitIdle)}
	}
	if *quick && !set["count"] {
		rc.count = 3
	}
	if *quick && !set["benchtime"] {
		rc.benchtime = 100 * time.Millisecond
	}
	for _, v := range splitList(*variants) {
		cfg, err := loopbench.ParseVariant(v)
		if err != nil {
			return runConfig{}, usageError{strings.TrimPrefix(err.Error(), "loopbench: ")}
		}
		rc.opts.Variants = append(rc.opts.Variants, cfg)
		rc.opts.Every = true
	}
	for _, w := range splitList(*workloads) {
		if err := bench.CheckWorkload(w); err != nil {
			return runConfig{}, usageError{err.Error()}
		}
		rc.opts.Workloads = append(rc.opts.Workloads, w)
	}
	if rc.out == "" {
		rc.out = newDir(filepath.Join("results", resultsName()))
	} else if entries, err := os.ReadDir(rc.out); err == nil && len(entries) > 0 {
		return runConfig{}, usageError{fmt.Sprintf("-out %s exists and is not empty: name a new directory", rc.out)}
	}
	return rc, nil
}

// resultsName is the name of a results directory: <date>-<host>-<short
// commit>.
func resultsName() string {
	host, _ := os.Hostname()
	c := commit()
	if len(c) > 7 && c != "unknown" {
		c = c[:7]
	}
	return time.Now().UTC().Format("2006-01-02") + "-" + host + "-" + c
}

// quoteArgs quotes the arguments a shell would split.
func quoteArgs(args []string) []string {
	out := make([]string, len(args))
	for i, a := range args {
		if a == "" || strings.ContainsAny(a, " \t'\"$|&;<>()*?[]{}\\") {
			a = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
		}
		out[i] = a
	}
	return out
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
	raw, err := os.Create(filepath.Join(rc.out, "raw.txt"))
	if err != nil {
		return err
	}
	writeConfig(raw)
	fmt.Fprintf(raw, "command: loopbench run %s\nseed: %d\n", strings.Join(quoteArgs(rc.args), " "), rc.seed)
	bench.WriteUnits(raw)
	stderr = &lockedWriter{w: stderr} // the heartbeat writes beside the run
	fmt.Fprintln(stderr, "loopbench run: "+plan(len(cases), rc.count, rc.benchtime))
	if rc.quick && rc.count < 6 {
		give := map[bool]string{true: "gives", false: "give"}[rc.count == 1]
		fmt.Fprintf(stderr, "loopbench run: -quick: %s %s no confidence intervals (6 are needed); use it to try things, not to decide\n", plural(rc.count, "round"), give)
	}

	ctx, stop := interruptContext(measuring)
	defer stop()
	progress := newProgress(stderr, len(cases), rc.count, time.Now)
	progress.start(newTicks())
	skip := func(c bench.Case, err error) {
		fmt.Fprintf(stderr, "loopbench run: skipped %s/%s: %v\n", c.Workload, c.Name(), err)
	}
	spans, runErr := runRounds(ctx, rc, cases, raw, skip, progress, stderr)
	progress.done()
	if err := raw.Close(); err != nil {
		return err
	}
	var marks [][2]string
	var interrupted *interruptedError
	if errors.As(runErr, &interrupted) {
		marks = append(marks, [2]string{"interrupted", interrupted.String()})
	}
	if len(spans) > 0 {
		marks = append(marks, machine.Config(spans)...)
	}
	if err := prependConfig(raw.Name(), marks); err != nil {
		return err
	}
	fmt.Fprintf(stderr, "results: %s\n", rc.out)
	repErr := writeReport(stdout, stderr, []string{filepath.Join(rc.out, "raw.txt")}, rc.out, nil, "loopbench run")
	if runErr != nil {
		return runErr
	}
	return repErr
}

// plan says how much a run will measure. How long it takes is not
// guessed from the timed loops: each measurement also sets its case up
// (10⁵ to 10⁶ timers, sockets, child processes), runs it at growing b.N
// until one run lasts -benchtime and collects garbage: a whole run took
// 2.7 times its timed loops (-quick, every case) and 10 times (CallSoon
// and Timers at -count 6 -benchtime 50ms: 4m57s for 30 s of loops). The
// progress lines estimate it from what the measurements took (see
// estimator).
func plan(cases, count int, benchtime time.Duration) string {
	timed := time.Duration(cases*count) * benchtime
	return fmt.Sprintf("%s × %s × %v: %v of timed loops, plus each case's setup and calibration; the time left is estimated from the measurements as they complete",
		plural(cases, "case"), plural(count, "round"), benchtime, timed.Round(time.Second))
}

// readMachine samples the machine's state around each round; tests
// replace it.
var readMachine = machine.Read

// runRounds measures every case count times, one pass per round in an
// order drawn from rc.seed (package rounds), writing each result as it
// comes, and returns the machine's state over each round; an interrupt
// stops it between cases.
func runRounds(ctx context.Context, rc runConfig, cases []bench.Case, raw io.Writer, skip func(bench.Case, error), p *progress, stderr io.Writer) ([]machine.Span, error) {
	w := newResultWriter(raw)
	cfg := rounds.Config{Count: rc.count, Seed: rc.seed, WaitIdle: rc.waitIdle, Sample: readMachine,
		Busy: func(round int, s machine.Span) {
			fmt.Fprintf(stderr, "loopbench run: the machine stayed busy for -wait-idle %v (%s): round %d runs anyway\n", rc.waitIdle, s, round+1)
		},
		Progress: func(s rounds.Step) { p.step(s.Round, s.Case, cases[s.Case]) },
	}
	res, err := rounds.Run(ctx, cfg, cases, func(_ context.Context, s rounds.Step, c bench.Case) error {
		res, err := measureCase(c, rc.benchtime)
		p.measured()
		if bench.Skippable(err) {
			if s.Round == 0 {
				skip(c, err)
			}
			return nil
		}
		if err != nil {
			return fmt.Errorf("%s/%s: %w", c.Workload, c.Name(), err)
		}
		return w.writeCase(c, res)
	})
	var in *rounds.Interrupted
	if errors.As(err, &in) {
		err = &interruptedError{done: in.Done, total: in.Total}
	}
	return res.Spans, err
}

// interruptedError is a run stopped by Ctrl-C after done of total
// measurements.
type interruptedError struct{ done, total int }

func (e *interruptedError) String() string {
	return fmt.Sprintf("after %d of %s (Ctrl-C)", e.done, plural(e.total, "measurement"))
}

func (e *interruptedError) Error() string {
	return "interrupted " + e.String() + ": the report covers what was measured"
}

// prependConfig puts configuration lines at the top of the results file,
// so that every result in it, and every report of it, carries them: the
// interrupt and the machine's state, known only at the end.
func prependConfig(path string, kvs [][2]string) error {
	if len(kvs) == 0 {
		return nil
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	var head strings.Builder
	for _, kv := range kvs {
		fmt.Fprintf(&head, "%s: %s\n", kv[0], kv[1])
	}
	return os.WriteFile(path, append([]byte(head.String()), b...), 0o644)
}

func measureCase(c bench.Case, d time.Duration) (bench.Result, error) {
	run, cleanup, err := c.Setup()
	if err != nil {
		return bench.Result{}, err
	}
	if cleanup != nil {
		defer cleanup()
	}
	return measure(run, d)
}
