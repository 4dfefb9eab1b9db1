// Package runner runs loopbench's benchmark matrix: every case measured
// once per round over seeded, shuffled rounds (package rounds), each
// measurement's setup, calibration and timed loops run in process, and
// each result written as it comes as a benchfmt line (Writer, the one
// writer of run's and peers' results). It tells how far a run is (Progress:
// a line rewritten on a terminal, a heartbeat line elsewhere, with the
// time left estimated from the measurements so far), and writes a run's
// results file: configuration lines first, then the results, then the
// interrupt and the machine's state, known only at the end, put on top.
// An interrupted run returns an *Interrupted error; what it measured is
// written.
package runner

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/loopbench/loopbench/bench"
	"github.com/loopbench/loopbench/internal/measure/loadresult"
	"github.com/loopbench/loopbench/internal/measure/machine"
	"github.com/loopbench/loopbench/internal/measure/rounds"
	"golang.org/x/perf/benchfmt"
)

// MeasureFunc measures run for about d, as bench.Measure does.
type MeasureFunc func(run func(bench.Timer, int) error, d time.Duration) (bench.Result, error)

// Config is how a run measures its cases.
type Config struct {
	Count     int           // rounds over every case, at least 1
	Benchtime time.Duration // time per measurement
	Seed      uint64        // of the case order of each round; the caller records it
	WaitIdle  time.Duration // the longest wait for a quiet machine before a round; 0: none
	// Measure measures a case; nil is bench.Measure. Sample reads the
	// machine's state around each round; nil is machine.Read.
	Measure MeasureFunc
	Sample  func() (machine.Sample, error)
	// Log, when not nil, is told of the cases skipped (in the first
	// round) and of rounds started on a busy machine.
	Log io.Writer
}

// Plan says how much a run will measure. How long it takes is not
// guessed from the timed loops: each measurement also sets its case up
// (10⁵ to 10⁶ timers, sockets, child processes), runs it at growing b.N
// until one run lasts the benchtime and collects garbage: a whole run took
// 2.7 times its timed loops (-quick, every case) and 10 times (CallSoon
// and Timers at -count 6 -benchtime 50ms: 4m57s for 30 s of loops). The
// progress lines estimate it from what the measurements took (see
// Progress).
func Plan(cases, count int, benchtime time.Duration) string {
	timed := time.Duration(cases*count) * benchtime
	return fmt.Sprintf("%s × %s × %v: %v of timed loops, plus each case's setup and calibration; the time left is estimated from the measurements as they complete",
		loadresult.Plural(cases, "case"), loadresult.Plural(count, "round"), benchtime, timed.Round(time.Second))
}

// Interrupted is a run stopped by Ctrl-C after Done of Total
// measurements.
type Interrupted struct{ Done, Total int }

// String is the mark of the interrupt in raw.txt.
func (e *Interrupted) String() string {
	return fmt.Sprintf("after %d of %s (Ctrl-C)", e.Done, loadresult.Plural(e.Total, "measurement"))
}

func (e *Interrupted) Error() string {
	return "interrupted " + e.String() + ": the report covers what was measured"
}

// Rounds measures every case cfg.Count times, one pass per round in an
// order drawn from cfg.Seed, writing each result to w as it comes, and
// returns the machine's state over each round. A case the machine cannot
// hold (bench.Skippable) is skipped; an interrupt (ctx done) stops it
// between cases with an *Interrupted error.
func (cfg Config) Rounds(ctx context.Context, cases []bench.Case, w *Writer, p *Progress) ([]machine.Span, error) {
	log := cfg.Log
	if log == nil {
		log = io.Discard
	}
	rc := rounds.Config{Count: cfg.Count, Seed: cfg.Seed, WaitIdle: cfg.WaitIdle, Sample: cfg.Sample,
		Busy: func(round int, s machine.Span) {
			fmt.Fprintf(log, "loopbench run: the machine stayed busy for -wait-idle %v (%s): round %d runs anyway\n", cfg.WaitIdle, s, round+1)
		},
		Progress: func(s rounds.Step) { p.step(s.Round, s.Case, cases[s.Case]) },
	}
	res, err := rounds.Run(ctx, rc, cases, func(_ context.Context, s rounds.Step, c bench.Case) error {
		res, err := MeasureCase(c, cfg.Benchtime, cfg.Measure)
		p.measured()
		if bench.Skippable(err) {
			if s.Round == 0 {
				fmt.Fprintf(log, "loopbench run: skipped %s/%s: %v\n", c.Workload, c.Name(), err)
			}
			return nil
		}
		if err != nil {
			return fmt.Errorf("%s/%s: %w", c.Workload, c.Name(), err)
		}
		return w.WriteCase(c, res)
	})
	var in *rounds.Interrupted
	if errors.As(err, &in) {
		err = &Interrupted{Done: in.Done, Total: in.Total}
	}
	return res.Spans, err
}

// MeasureCase sets c up, measures it for about d with measure (nil is
// bench.Measure) and cleans it up.
func MeasureCase(c bench.Case, d time.Duration, measure MeasureFunc) (bench.Result, error) {
	if measure == nil {
		measure = bench.Measure
	}
	run, cleanup, err := c.Setup()
	if err != nil {
		return bench.Result{}, err
	}
	if cleanup != nil {
		defer cleanup()
	}
	return measure(run, d)
}

// WriteFile runs the rounds into a new results file at path: head writes
// its configuration lines, then the units' lines and each result follow;
// at the end the interrupt, if any, and the machine's state over the
// rounds are put on top, so that every result, and every report of it,
// carries them. It stops p. err is a failure to write the file; runErr a
// failure of the rounds (an *Interrupted among them), after which the
// file holds what was measured.
func (cfg Config) WriteFile(ctx context.Context, path string, head func(io.Writer), cases []bench.Case, p *Progress) (runErr, err error) {
	raw, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	head(raw)
	bench.WriteUnits(raw)
	spans, runErr := cfg.Rounds(ctx, cases, NewWriter(benchfmt.NewWriter(raw)), p)
	p.Done()
	if err := raw.Close(); err != nil {
		return runErr, err
	}
	var marks [][2]string
	var interrupted *Interrupted
	if errors.As(runErr, &interrupted) {
		marks = append(marks, [2]string{"interrupted", interrupted.String()})
	}
	if len(spans) > 0 {
		marks = append(marks, machine.Config(spans)...)
	}
	return runErr, PrependConfig(path, marks)
}

// PrependConfig puts configuration lines at the top of the results file
// at path.
func PrependConfig(path string, kvs [][2]string) error {
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

// QuoteArgs quotes the arguments a shell would split, for the command
// line a results file records.
func QuoteArgs(args []string) []string {
	out := make([]string, len(args))
	for i, a := range args {
		if a == "" || strings.ContainsAny(a, " \t'\"$|&;<>()*?[]{}\\") {
			a = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
		}
		out[i] = a
	}
	return out
}
