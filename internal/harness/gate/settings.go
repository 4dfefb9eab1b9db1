package gate

import (
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/loopbench/loopbench/internal/harness/verdict"
	"golang.org/x/perf/benchproc"
)

// WindowBenchtime is the instructions metric's default -benchtime for
// windows: the native time whose iterations size a window. A window's
// count per op does not need a second of work to repeat, only enough
// operations that a preemption (about 1000 instructions) is a small
// share: 2 ms of native work is a few million instructions.
const WindowBenchtime = "2ms"

// Settings are a gate's settings as its command line gives them, before
// they are checked. Check validates them and fills in the defaults that
// follow the metric; Config and Judging then describe the run.
type Settings struct {
	Base, Head, Pkg, Bench, Benchtime, Out, WriteFloor string
	Count, MinCount                                    int
	Seed                                               uint64
	AA                                                 bool
	Verdict                                            verdict.Settings
	// The instructions metric's.
	Metric, Method, MaxSpread, Save, SaveOnly, Baseline string
	Repeat, MaxRepeat, Jobs                             int
	Short                                               bool
	// Given says which settings the command line named (by flag name):
	// defaults and refusals depend on it.
	Given map[string]bool

	spread          float64 // MaxSpread, parsed
	windowBenchtime string  // sizes windows when -benchtime is not given
	defaultEffect   bool    // -min-effect not given: it follows the method
	options         verdict.Options
	filter          *benchproc.Filter
}

// Check validates the settings and sets the defaults that follow the
// metric: -min-effect 5 % and -benchtime 100ms for wall time; for
// instructions 0.5 % and 20ms (WindowBenchtime for windows). Each error
// is one line naming what is wrong: bad input, before anything runs.
func (s *Settings) Check() error {
	if err := s.checkInstructions(); err != nil {
		return err
	}
	if s.Verdict.MinEffect == "" {
		s.Verdict.MinEffect = "5%"
	}
	if s.Benchtime == "" {
		s.Benchtime = "100ms"
	}
	if err := s.checkRounds(); err != nil {
		return err
	}
	var err error
	s.options, s.filter, err = s.Verdict.Options()
	return err
}

// checkRounds checks the settings of the rounds and of calibration.
func (s *Settings) checkRounds() error {
	alpha := s.Verdict.Alpha
	switch {
	case s.Metric == "instructions" && s.MinCount > 0:
		return errors.New("-min-count applies to wall time: counts need one look")
	case s.Metric == "instructions":
	case s.MinCount != 0 && (s.MinCount < 2 || s.MinCount > s.Count):
		return fmt.Errorf("-min-count %d: want 2 to -count (%d)", s.MinCount, s.Count)
	case s.MinCount > 0 && s.AA:
		return errors.New("-min-count does not apply to -aa: calibration runs -count rounds")
	case s.Count < 2:
		return fmt.Errorf("-count %d: one round a side is no evidence for the U test; want at least %d (10 or more to decide at the run's corrected level)", s.Count, verdict.SamplesFor(alpha))
	case alpha > 0 && alpha < 1 && !verdict.Reachable(s.Count, s.Count, s.lastLevel()):
		return errors.New(s.countTooSmall())
	case s.WriteFloor != "" && s.Count < verdict.MinFloorSamples:
		return fmt.Errorf("-write-floor needs -count %d or more: a floor is a quantile over the A/A rounds", verdict.MinFloorSamples)
	case !validBenchtime(s.Benchtime):
		return fmt.Errorf("-benchtime %q: want a positive duration such as 100ms, or Nx", s.Benchtime)
	case s.AA && s.Given["base"]:
		return errors.New("-aa runs the head binary against itself: drop -base")
	case s.WriteFloor != "" && !s.AA:
		return errors.New("-write-floor needs -aa")
	case s.Verdict.Force:
		return errors.New("-force does not apply to gate: both sides run on this machine")
	}
	return nil
}

// lastLevel is the level of the wall-time gate's last look: -alpha, or
// with -min-count its share over the looks.
func (s *Settings) lastLevel() float64 {
	if s.MinCount > 0 {
		return verdict.LookAlpha(s.Verdict.Alpha, len(verdict.Looks(s.MinCount, s.Count)))
	}
	return s.Verdict.Alpha
}

// countTooSmall says why -count cannot decide: its U tests cannot reach
// the last look's level whatever the rounds measure.
func (s *Settings) countTooSmall() string {
	level, at := s.lastLevel(), fmt.Sprintf("p<=%g", s.Verdict.Alpha)
	if s.MinCount > 0 {
		at = fmt.Sprintf("p<=%.3g (-alpha %g over %s)", level, s.Verdict.Alpha, plural(len(verdict.Looks(s.MinCount, s.Count)), "look"))
	}
	return fmt.Sprintf("-count %d: the U test on %d+%d rounds cannot reach %s (its smallest p is %.2g), so it could flag nothing; want -count %d or more (10 or more to decide at the run's corrected level)",
		s.Count, s.Count, s.Count, at, verdict.MinP(s.Count, s.Count), verdict.SamplesFor(level))
}

// validBenchtime says s is a -test.benchtime: a positive duration or Nx.
func validBenchtime(s string) bool {
	if n, ok := strings.CutSuffix(s, "x"); ok {
		v, err := strconv.Atoi(n)
		return err == nil && v > 0
	}
	d, err := time.ParseDuration(s)
	return err == nil && d > 0
}

// instructionFlags are the settings that apply to the instructions
// metric alone.
var instructionFlags = []string{"repeat", "max-repeat", "short", "j", "max-spread", "save", "save-only", "baseline", "method"}

// checkInstructions checks the metric and the instructions metric's
// settings, and sets its defaults: -min-effect 0.5 % and -benchtime
// unless given: 20ms for the difference of two processes,
// WindowBenchtime for windows.
func (s *Settings) checkInstructions() error {
	switch s.Metric {
	case "wall":
		for _, name := range instructionFlags {
			if s.Given[name] {
				return fmt.Errorf("-%s applies to -metric instructions", name)
			}
		}
		return nil
	case "instructions":
	default:
		return fmt.Errorf("-metric %q: want wall or instructions", s.Metric)
	}
	switch s.Method {
	case "auto", "windows", "difference":
	default:
		return fmt.Errorf("-method %q: want auto, windows or difference", s.Method)
	}
	var err error
	if s.spread, err = verdict.ParseEffect(s.MaxSpread); err != nil {
		return fmt.Errorf("-max-spread %q: want a percentage such as 0.5%%", s.MaxSpread)
	}
	switch {
	case s.Repeat < 2:
		return fmt.Errorf("-repeat %d: want at least 2: a single count cannot show that a benchmark's counts disagree", s.Repeat)
	case s.MaxRepeat < s.Repeat:
		return fmt.Errorf("-max-repeat %d: want at least -repeat (%d)", s.MaxRepeat, s.Repeat)
	case s.Jobs < 1:
		return fmt.Errorf("-j %d: want at least 1", s.Jobs)
	case s.Baseline != "" && (s.Given["base"] || s.AA):
		return errors.New("-baseline stands for the base side: drop -base and -aa")
	case s.SaveOnly != "" && (s.Given["base"] || s.AA || s.Baseline != "" || s.Save != ""):
		return errors.New("-save-only counts head alone: drop -base, -aa, -baseline and -save")
	case s.WriteFloor != "":
		return errors.New("-write-floor applies to wall time: counts need no noise floor")
	}
	if !s.Given["min-effect"] {
		// Well above the A/A deltas of windows without sysmon (0.26 %
		// at most, 0.02 % on most), below a multiply-add in CallLater
		// (+0.6 to +0.9 % of a Timers operation); DifferenceEffect by
		// the difference of two processes.
		s.Verdict.MinEffect, s.defaultEffect = "0.5%", true
	}
	if !s.Given["benchtime"] {
		s.Benchtime, s.windowBenchtime = "20ms", WindowBenchtime
	}
	return nil
}

// Config is the run the checked settings describe, in dir, writing to
// out, with the machine's configuration lines and the log.
func (s *Settings) Config(dir, out string, machine [][2]string, log io.Writer) Config {
	cfg := Config{Dir: dir, Base: s.Base, Head: s.Head, AA: s.AA, Pkg: s.Pkg, Bench: s.Bench, Count: s.Count,
		Benchtime: s.Benchtime, Seed: s.Seed, Out: out, Machine: machine, Log: log}
	if s.Metric != "instructions" {
		return cfg
	}
	cfg.Metric = "instructions"
	switch s.Method {
	case "windows":
		cfg.Method = MethodWindow
	case "difference":
		cfg.Method = MethodDifference
	}
	cfg.Callgrind.Repeat, cfg.Callgrind.Jobs, cfg.Callgrind.MaxSpread = s.Repeat, s.Jobs, s.spread
	cfg.Callgrind.MaxRepeat, cfg.Short = s.MaxRepeat, s.Short
	cfg.Callgrind.WindowBenchtime = s.windowBenchtime
	cfg.Callgrind.Widen = Widen
	cfg.Callgrind.Undecided = RangeUndecided(s.options.MinEffect)
	if s.Baseline != "" {
		cfg.Baseline, cfg.AA = s.Baseline, true // one binary built: head's
	}
	if s.SaveOnly != "" {
		cfg.HeadOnly, cfg.AA = true, true
	}
	return cfg
}

// Judging is how the checked settings judge the run: with -min-count
// sequentially, each look at its share of -alpha.
func (s *Settings) Judging() *Judging {
	jg := &Judging{Options: s.options, Filter: s.filter, WriteFloor: s.WriteFloor, DefaultEffect: s.defaultEffect,
		MaxSpread: s.MaxSpread, Save: s.Save, SaveOnly: s.SaveOnly, JSON: s.Verdict.Format == "json"}
	if s.MinCount > 0 {
		jg.Sequential = NewSequential(s.MinCount, s.Count, s.options.Alpha)
		jg.Options.Alpha = jg.Sequential.Level
	}
	return jg
}
