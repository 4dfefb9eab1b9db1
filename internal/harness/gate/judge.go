package gate

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"text/tabwriter"
	"time"

	"github.com/loopbench/loopbench/internal/harness/callgrind"
	"github.com/loopbench/loopbench/internal/harness/verdict"
	"github.com/loopbench/loopbench/internal/measure/loadresult"
	"golang.org/x/perf/benchmath"
	"golang.org/x/perf/benchproc"
)

// DifferenceEffect is the default minimum effect of counts taken by the
// difference of two processes: their A/A spread reaches 0.97 % (a whole
// process's start, init and exit inside the difference), where a
// window's stays within 0.3 %.
const DifferenceEffect = 0.01

// ErrNothingCounted is the judgment of an instruction gate that counted
// no benchmark: nothing to judge, so undecided.
var ErrNothingCounted = errors.New("no benchmark was counted: nothing to judge on counts; use -metric wall")

// Judging is how a finished gate is judged and printed: the verdict's
// options and filter, and what the gate's flags ask besides.
type Judging struct {
	Options    verdict.Options
	Filter     *benchproc.Filter
	Sequential *Sequential // the looks of a sequential wall-time gate; nil: fixed rounds
	WriteFloor string      // an A/A wall-time gate writes noise floors here
	// DefaultEffect says the minimum effect was not given: counts taken
	// by the difference of two processes are judged at DifferenceEffect.
	DefaultEffect bool
	MaxSpread     string // instructions: -max-spread as given, for the listing
	Save          string // instructions: also copy head's counts here
	SaveOnly      string // instructions: head counted alone, copied here; no verdict
	JSON          bool   // print nothing: a JSON report follows
}

// minEffect is the minimum effect of a run that counted by method: the
// options', or the method's default.
func (jg *Judging) minEffect(method string) float64 {
	if jg.DefaultEffect && method == MethodDifference {
		return DifferenceEffect
	}
	return jg.Options.MinEffect
}

// Gate runs the gate of cfg and judges it, printing to w: with a
// Sequential, cfg stops at the first look that decides every benchmark
// (it says so on cfg.Log). It returns what ran (nil when nothing could
// start) and the judgment (nil when there is none). Its error is Judge's,
// or Failed's when the gate could not finish: then a gate that measured
// nothing leaves no output directory behind.
func (jg *Judging) Gate(ctx context.Context, cfg Config, w io.Writer) (*Result, *verdict.Judgment, error) {
	if jg.Sequential != nil {
		log := cfg.Log
		if log == nil {
			log = io.Discard
		}
		cfg.Stop = jg.Sequential.Stop(cfg.Out, jg.Options, jg.Filter, log)
	}
	created := MissingDirs(cfg.Out)
	res, err := Run(ctx, cfg)
	if err != nil {
		return res, nil, Failed(res, created, err)
	}
	j, err := jg.Judge(w, cfg, res)
	return res, j, err
}

// Judge prints what the gate ran (res, as cfg asked), judges its files
// and prints the verdict, the sequential gate's looks and an A/A run's
// calibration. Its error is the verdict's (a *verdict.Failure),
// ErrNothingCounted, or one saying the files could not be judged, saved
// or calibrated; the judgment is nil when there is none.
func (jg *Judging) Judge(w io.Writer, cfg Config, res *Result) (*verdict.Judgment, error) {
	if jg.JSON {
		w = io.Discard
	}
	o := jg.Options
	o.MinEffect = jg.minEffect(res.Method)
	instr := cfg.Metric == "instructions"
	jg.header(w, cfg, res)
	if instr {
		if err := jg.finish(w, cfg, res); err != nil || jg.SaveOnly != "" {
			return nil, err
		}
	}
	j, err := verdict.Judge(res.Base.Path, res.Head.Path, o, jg.Filter, false)
	if err != nil {
		return nil, err
	}
	err = j.Err()
	if !jg.JSON {
		j.WriteText(w)
		if n := len(res.NotCounted); n > 0 {
			fmt.Fprintf(w, "%d not counted (listed above): not judged.\n", n)
		}
	}
	if jg.Sequential != nil {
		jg.Sequential.Finish(w, j.Verdict, res)
	}
	var f *verdict.Failure
	if cfg.AA && !instr {
		if cerr := Calibrate(w, j.Verdict, jg.WriteFloor, cfg.Seed); cerr != nil && !(errors.As(err, &f) && f.Exit == verdict.ExitRegression) {
			err = cerr
		}
	}
	return j, err
}

// Calibrate prints the A/A run's spread per benchmark and writes floors
// to floorPath unless it is "": the upper 95 % bootstrap quantile of each
// benchmark's A/A delta (verdict.AAFloor, seeded from the gate's seed).
// It refuses to write floors from an undecided run or from too few
// rounds.
func Calibrate(w io.Writer, v *verdict.Verdict, floorPath string, seed uint64) error {
	flagged := v.Count(verdict.Regressed) + v.Count(verdict.Improved)
	fmt.Fprintf(w, "\nA/A calibration: %d of %s flagged (a chance alarm at alpha %g is expected in at most that share of A/A runs).\n", flagged, plural(len(v.Comparisons), "comparison"), v.Alpha)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "benchmark\tunit\tspread A\tspread B\tA/A delta\tfloor")
	floors := verdict.Floors{}
	var floorErr error
	for i, c := range v.Comparisons {
		if c.Exact {
			continue
		}
		floor, err := verdict.AAFloor(c.Base, c.Head, seed+uint64(i))
		cell := verdict.PctString(floor)
		if err != nil {
			floorErr, cell = err, "-"
		}
		floors.Set(c.Group, c.Name, c.Unit, floor)
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", c.Name, c.Unit, spreadString(c.BaseSum), spreadString(c.HeadSum), verdict.FormatDelta(c.Delta), cell)
	}
	tw.Flush()
	switch {
	case floorPath == "":
		return nil
	case v.Count(verdict.Undecided) > 0:
		return fmt.Errorf("-write-floor: not written: the A/A run is undecided (%s)", v.NeedMessage())
	case floorErr != nil:
		return fmt.Errorf("-write-floor: not written: %v (raise -count)", floorErr)
	}
	f, err := os.Create(floorPath)
	if err != nil {
		return err
	}
	comment := fmt.Sprintf("loopbench noise floors: the upper %g bootstrap quantile of each benchmark's A/A delta\n%s", verdict.FloorQuantile, time.Now().UTC().Format(time.RFC3339))
	if err := floors.Write(f, comment); err != nil {
		f.Close()
		return err
	}
	fmt.Fprintf(w, "floors: %s\n", floorPath)
	return f.Close()
}

// spreadString is a summary's widest side as a percentage of its center.
func spreadString(s benchmath.Summary) string {
	if s.Center == 0 || math.IsInf(s.Lo, 0) || math.IsInf(s.Hi, 0) {
		return "∞"
	}
	return fmt.Sprintf("±%.1f%%", 100*max(s.Hi-s.Center, s.Center-s.Lo)/s.Center)
}

// Sequential is a wall-time gate that looks at its rounds as they come:
// first after -min-count, then at each doubling up to -count, each look
// held at alpha over the number of looks (verdict.LookAlpha), and stops
// once every benchmark is decided.
type Sequential struct {
	looks []int
	Level float64 // each look's alpha
}

// NewSequential is the sequential gate of minCount to count rounds at
// the family-wise alpha.
func NewSequential(minCount, count int, alpha float64) *Sequential {
	looks := verdict.Looks(minCount, count)
	return &Sequential{looks, verdict.LookAlpha(alpha, len(looks))}
}

// Stop is the gate's Config.Stop: at a look, whether the files in out
// decide every benchmark at the look's level; it says so on log.
func (s *Sequential) Stop(out string, o verdict.Options, filter *benchproc.Filter, log io.Writer) func(int) bool {
	o.Alpha = s.Level
	return func(rounds int) bool {
		if !slices.Contains(s.looks, rounds) {
			return false
		}
		_, m, err := verdict.MatchFiles(filepath.Join(out, "base.txt"), filepath.Join(out, "head.txt"), filter, false)
		if err != nil {
			return false
		}
		v := verdict.Decide(m.Pairs, o)
		left := len(v.Undecided())
		fmt.Fprintf(log, "look after %s: %d of %s undecided\n", plural(rounds, "round"), left, plural(len(v.Comparisons), "comparison"))
		return left == 0
	}
}

// Finish prints how the sequential gate ran, and, for the comparisons
// its last look left neither significant nor within the minimum effect,
// how they were passed and the rounds that would likely decide them.
// (With -require-equivalence the verdict counts them undecided: exit 3.)
func (s *Sequential) Finish(w io.Writer, v *verdict.Verdict, res *Result) {
	fmt.Fprintf(w, "sequential: %s of at most %d, looks at %v each held at alpha %.3g (alpha over %s, Holm within each)\n",
		plural(res.Rounds, "round"), s.looks[len(s.looks)-1], s.looks, s.Level, plural(len(s.looks), "look"))
	left := v.Undecided()
	if len(left) == 0 || v.Count(verdict.Undecided) > 0 {
		return
	}
	fmt.Fprintf(w, "%s neither significant nor within the minimum effect after %s: passed, as no significant regression (-require-equivalence would exit 3); about %s would likely decide them\n",
		plural(len(left), "comparison"), plural(res.Rounds, "round"), plural(v.RoundsToDecide(s.Level), "round"))
}

// RangeUndecided says two sides' window counts are undecided by the
// verdict's range rule at minEffect, in instructions/op or in
// est-cycles/op (at its own minimum effect): the gate then counts them
// again at wider windows (callgrind.Options.Undecided). One side alone is
// never undecided.
func RangeUndecided(minEffect float64) func([][]callgrind.Counts) bool {
	return func(sides [][]callgrind.Counts) bool {
		if len(sides) != 2 {
			return false
		}
		for _, u := range []struct {
			unit string
			of   func(callgrind.Counts) float64
		}{{"instructions/op", func(c callgrind.Counts) float64 { return c.Ir }}, {verdict.EstCyclesUnit, callgrind.Counts.EstCycles}} {
			var vals [2][]float64
			for i, side := range sides {
				for _, c := range side {
					vals[i] = append(vals[i], u.of(c))
				}
			}
			if verdict.RangeUndecided(vals[0], vals[1], verdict.UnitMinEffect(u.unit, minEffect)) {
				return true
			}
		}
		return false
	}
}

// plural is n and noun, as every output of the harness counts.
func plural(n int, noun string) string { return loadresult.Plural(n, noun) }
