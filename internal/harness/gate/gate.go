package gate

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/loopbench/loopbench/internal/harness/callgrind"
	"github.com/loopbench/loopbench/internal/harness/overlay"
	"github.com/loopbench/loopbench/internal/measure/benchdata"
)

// Config is a gate run.
type Config struct {
	Dir  string // where the gate runs: inside the git checkout
	Base string // revision; "" means HEAD~1
	Head string // revision; "" means the working tree
	AA   bool   // calibration: the head binary against itself
	// Pkg is the package of the benchmarks, relative to Dir; "" gates
	// those of the module's packages whose benchmarks -bench matches
	// (./bench in loopbench's own module).
	Pkg       string
	Bench     string // -test.bench regexp
	Count     int    // rounds
	Benchtime string // -test.benchtime
	Seed      uint64 // of the per-round order
	Out       string // output directory
	// Config lines written at the top of each file, before commit and
	// side (the machine, as loopbench run writes it).
	Machine [][2]string
	Log     io.Writer // progress and build failures; may be nil
	// Metric is "" (wall time: rounds of go test -bench) or
	// "instructions" (counts under callgrind, see package callgrind).
	Metric    string
	Callgrind callgrind.Options // of the instructions metric
	// Baseline is a head file of an earlier instruction gate that stands
	// for the base side, which is then not measured.
	Baseline string
	// HeadOnly counts head alone (the instructions metric), for a saved
	// baseline: no base side, no verdict.
	HeadOnly bool
	// Method forces how the instructions metric counts: "windows" (an
	// error where the toolchain does not take the overlay) or
	// "difference"; "" counts by windows where it can, else by the
	// difference of two processes.
	Method string
	// Short runs the binaries with -test.short (the instructions metric):
	// loopbench's pull-request set.
	Short bool
	// Stop, when not nil, is asked after each round whether the rounds so
	// far decide: a sequential gate stops there.
	Stop func(rounds int) bool
	// toolchain, when not nil, stands for overlay.Current: the toolchain
	// whose testing package the instructions metric patches.
	toolchain func(dir string) (overlay.Toolchain, error)
}

// Side is one side of the gate.
type Side struct {
	Name   string // "base" or "head"
	Rev    string // as given
	Commit string // the resolved commit, with "-dirty" for a changed working tree
	// CommitTime is the commit's committer date (RFC 3339, UTC; HEAD's
	// for the working tree): what orders saved counts in a history.
	CommitTime string
	Binary     string // the test binary (of the first package)
	Path       string // its results file
	Runs       int    // rounds measured
	bins       []*binary
	err        error // its build error
}

// Result is what a gate run measured.
type Result struct {
	Base, Head *Side
	GatePath   string
	Rounds     int      // completed rounds
	Orders     []string // the order of each round: "base,head" or "head,base"
	// Nondeterministic lists, for the instructions metric, the benchmarks
	// whose repeats disagreed (judged on their ranges).
	Nondeterministic []Nondeterministic
	// Widened lists, for the instructions metric, the benchmarks counted
	// again at Widen times their windows' iterations on every side after
	// their repeats disagreed or the range rule could not tell their sides
	// apart (callgrind.Options.Widen), judged on those counts; each name
	// once, with its new iteration count.
	Widened []Widened
	// NotCounted lists, for the instructions metric, the benchmarks the
	// harness skipped when listed (callgrind.Skipped: work it cannot
	// count, such as the Go runtime's timers), each name once: not
	// counted and not judged, never passed.
	NotCounted []callgrind.Skipped
	// Method is how the instructions metric counted: MethodWindow or
	// MethodDifference.
	Method string
	// pkgOf is the import path of each test binary where more than one
	// package is gated: benchmarks are then named with their package.
	pkgOf map[string]string
}

// Error is a failure of the gate itself (not a verdict): bad input, a
// build or a benchmark run that failed. What was measured before it is
// kept in the output directory.
type Error struct{ Msg string }

func (e *Error) Error() string { return e.Msg }

func errorf(format string, args ...any) error { return &Error{fmt.Sprintf(format, args...)} }

// Run runs the gate. The returned Result describes what was measured even
// when err is not nil.
func Run(ctx context.Context, cfg Config) (*Result, error) {
	if cfg.Log == nil {
		cfg.Log = io.Discard
	}
	top, rel, err := checkout(ctx, cfg)
	if err != nil {
		return nil, err
	}
	res, err := resolveSides(ctx, cfg)
	if err != nil {
		return res, err
	}
	var vg callgrind.Valgrind
	if cfg.Metric == "instructions" { // before the builds: one line, at once
		if vg, err = callgrind.Find(); err != nil {
			return res, errorf("-metric instructions: %v", err)
		}
	}
	tmp, err := os.MkdirTemp("", "loopbench-gate-")
	if err != nil {
		return res, errorf("%v", err)
	}
	defer os.RemoveAll(tmp)
	defer removeWorktrees(top, tmp)

	if err := buildSides(ctx, cfg, res, top, rel, tmp); err != nil {
		return res, err
	}
	failed, err := checkSides(ctx, cfg, res)
	if err != nil {
		return res, err
	}
	if cfg.Metric == "instructions" {
		return res, measureInstructions(ctx, cfg, res, failed, vg)
	}
	if err := runRounds(ctx, cfg, res); err != nil {
		return res, err
	}
	if failed != nil {
		ok := other(failed, res.Base, res.Head)
		return res, errorf("%v (the %s side's %d rounds are in %s)", failed.err, ok.Name, res.Rounds, ok.Path)
	}
	return res, nil
}

// checkout returns the top directory of the git checkout cfg.Dir is in
// and cfg.Dir relative to it, and creates the output directory.
func checkout(ctx context.Context, cfg Config) (top, rel string, err error) {
	top, err = git(ctx, cfg.Dir, "rev-parse", "--show-toplevel")
	if err != nil {
		return "", "", errorf("not a git checkout: %s", cfg.Dir)
	}
	rel, err = relDir(top, cfg.Dir)
	if err != nil {
		return "", "", errorf("%v", err)
	}
	if err := os.MkdirAll(cfg.Out, 0o755); err != nil {
		return "", "", errorf("output directory: %v", err)
	}
	return top, rel, nil
}

// resolveSides names the two sides' revisions (base defaults to HEAD~1;
// an A/A gate's base is head) and resolves their commits. The Result it
// returns is not nil even with an error.
func resolveSides(ctx context.Context, cfg Config) (*Result, error) {
	base, head := &Side{Name: "base", Rev: cfg.Base}, &Side{Name: "head", Rev: cfg.Head}
	switch {
	case cfg.AA:
		base.Rev = head.Rev // one binary, named once: the working tree when head is
	case base.Rev == "":
		base.Rev = "HEAD~1"
	}
	res := &Result{Base: base, Head: head, GatePath: filepath.Join(cfg.Out, "gate.txt")}
	var err error
	if head.Commit, err = resolve(ctx, cfg.Dir, head.Rev); err != nil {
		return res, err
	}
	if cfg.AA {
		base.Commit = head.Commit
	} else if base.Commit, err = resolve(ctx, cfg.Dir, base.Rev); err != nil {
		return res, err
	}
	for _, s := range []*Side{base, head} {
		s.CommitTime = commitTime(ctx, cfg.Dir, s.Commit)
	}
	return res, nil
}

// commitTime is commit's committer date in RFC 3339, UTC ("-dirty"
// stripped: the working tree's commit), or "" when git cannot say.
func commitTime(ctx context.Context, dir, commit string) string {
	out, err := git(ctx, dir, "show", "-s", "--format=%ct", strings.TrimSuffix(commit, "-dirty"))
	if err != nil {
		return ""
	}
	sec, err := strconv.ParseInt(out, 10, 64)
	if err != nil {
		return ""
	}
	return time.Unix(sec, 0).UTC().Format(time.RFC3339)
}

// buildSides builds the two sides' test binaries under tmp, once when
// both sides are the same revision. It fails only when neither builds;
// a side that failed keeps its error.
func buildSides(ctx context.Context, cfg Config, res *Result, top, rel, tmp string) error {
	base, head := res.Base, res.Head
	notes := []string{head.build(ctx, cfg, top, rel, tmp)}
	switch {
	case cfg.AA:
		base.Binary, base.bins, base.err = head.Binary, head.bins, head.err
	case base.Commit == head.Commit && head.Rev != "":
		// One revision twice: its two builds would be the same bytes.
		base.Binary, base.bins, base.err = head.Binary, head.bins, head.err
	default:
		notes = append(notes, base.build(ctx, cfg, top, rel, tmp))
	}
	for i, n := range notes {
		if n != "" && (i == 0 || n != notes[0]) {
			fmt.Fprintf(cfg.Log, "gate: %s\n", n)
		}
	}
	if base.err != nil && head.err != nil {
		return errorf("%v; %v", base.err, head.err)
	}
	return nil
}

// checkSides checks that each side that built has a benchmark -bench
// matches, and returns the side that failed to build, if any.
func checkSides(ctx context.Context, cfg Config, res *Result) (failed *Side, err error) {
	for _, s := range res.sides() {
		if s.err != nil {
			failed = s
			continue
		}
		if err := s.checkBenchmarks(ctx, cfg); err != nil {
			return failed, err
		}
	}
	return failed, nil
}

// sides returns base and head, in that order.
func (r *Result) sides() []*Side { return []*Side{r.Base, r.Head} }

// matchedNothing reports whether no measured side has a result and none
// was set aside: the -bench pattern matched no benchmark at some level
// below the top one, which -test.list cannot see.
func matchedNothing(res *Result, cfg Config) bool {
	if len(res.Nondeterministic) > 0 {
		return false
	}
	for _, s := range res.sides() {
		if s.err != nil || (s.Name == "base" && cfg.Baseline != "") {
			continue
		}
		if _, err := benchdata.ReadFile(s.Path, nil); !errors.Is(err, benchdata.ErrNoResults) {
			return false
		}
	}
	return true
}

// writeGateFile writes gate.txt: base's file and then head's, each under
// its "side" line (a saved baseline, written as a head, stands for base).
func writeGateFile(res *Result) error {
	var all []byte
	for _, s := range res.sides() {
		b, err := os.ReadFile(s.Path)
		if errors.Is(err, os.ErrNotExist) {
			continue // a side that did not build
		} else if err != nil {
			return errorf("%v", err)
		}
		lines := strings.SplitAfter(string(b), "\n")
		for i, l := range lines {
			if strings.HasPrefix(l, "side: ") {
				lines[i] = "side: " + s.Name + "\n"
			}
		}
		all = append(all, strings.Join(lines, "")...)
	}
	if err := os.WriteFile(res.GatePath, all, 0o644); err != nil {
		return errorf("%v", err)
	}
	return nil
}

// other returns whichever of a and b is not s.
func other(s, a, b *Side) *Side {
	if s == a {
		return b
	}
	return a
}

// relDir returns dir relative to the checkout's top directory.
func relDir(top, dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		abs = real
	}
	if real, err := filepath.EvalSymlinks(top); err == nil {
		top = real
	}
	return filepath.Rel(top, abs)
}

// resolve returns the commit of rev, or the working tree's HEAD commit
// (with "-dirty" when it has changes) for "".
func resolve(ctx context.Context, dir, rev string) (string, error) {
	if rev == "" {
		c, err := git(ctx, dir, "rev-parse", "--verify", "HEAD^{commit}")
		if err != nil {
			return "", errorf("the working tree has no commit yet: %v", err)
		}
		if st, err := git(ctx, dir, "status", "--porcelain", "--untracked-files=no"); err == nil && st != "" {
			c += "-dirty"
		}
		return c, nil
	}
	if strings.HasPrefix(rev, "-") {
		return "", errorf("unknown revision %q", rev)
	}
	c, err := git(ctx, dir, "rev-parse", "--verify", "--quiet", rev+"^{commit}")
	if err != nil {
		if shallow, _ := git(ctx, dir, "rev-parse", "--is-shallow-repository"); shallow == "true" {
			return "", errorf("unknown revision %q: this is a shallow clone, without the history the gate needs; fetch it (git fetch --unshallow), and check out with fetch-depth: 0 in CI (actions/checkout)", rev)
		}
		return "", errorf("unknown revision %q", rev)
	}
	return c, nil
}

// checkBenchmarks fails when no binary of the side has a benchmark the
// -bench pattern's first level matches; binaries without one, among the
// packages found without -pkg, are dropped.
func (s *Side) checkBenchmarks(ctx context.Context, cfg Config) error {
	first := topLevel(cfg.Bench)
	if _, err := regexp.Compile(first); err != nil {
		return errorf("-bench %q: %v", cfg.Bench, err)
	}
	var keep []*binary
	var miss error
	for _, b := range s.bins {
		err := b.checkBenchmarks(ctx, cfg, first, s.Name)
		if err == nil {
			keep = append(keep, b)
		} else if miss == nil || cfg.Pkg != "" {
			miss = err
		}
	}
	if len(keep) == 0 {
		return miss
	}
	s.bins, s.Binary = keep, keep[0].path
	return nil
}

// checkBenchmarks fails when b has no benchmark first matches.
func (b *binary) checkBenchmarks(ctx context.Context, cfg Config, first, side string) error {
	cmd := exec.CommandContext(ctx, b.path, "-test.list", first)
	cmd.Dir = b.dir
	out, err := cmd.Output()
	if err != nil {
		return errorf("%s: listing the benchmarks: %v", side, err)
	}
	for _, line := range strings.Split(string(out), "\n") {
		if strings.HasPrefix(line, "Benchmark") {
			return nil
		}
	}
	cmd = exec.CommandContext(ctx, b.path, "-test.list", ".")
	cmd.Dir = b.dir
	all, _ := cmd.Output()
	if !bytes.Contains(all, []byte("Benchmark")) {
		return errorf("%s has no benchmarks (at %s)", b.pkg, side)
	}
	return errorf("-bench %q matches no benchmark in %s (at %s)", cfg.Bench, b.pkg, side)
}

// topLevel returns the part of a -test.bench pattern that matches
// top-level benchmark names: up to the first slash outside brackets and
// parentheses, as the testing package splits it.
func topLevel(pattern string) string {
	depth, class := 0, false
	for i := 0; i < len(pattern); i++ {
		switch c := pattern[i]; {
		case c == '\\':
			i++
		case class:
			class = c != ']'
		case c == '[':
			class = true
		case c == '(':
			depth++
		case c == ')':
			depth--
		case c == '/' && depth == 0:
			return pattern[:i]
		}
	}
	return pattern
}

// firstLines is the gist of a failed command's output, on one line.
func firstLines(out []byte, err error) string {
	var keep []string
	for _, line := range strings.Split(string(out), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") || strings.HasPrefix(line, "goos:") || strings.HasPrefix(line, "goarch:") || strings.HasPrefix(line, "pkg:") || strings.HasPrefix(line, "cpu:") {
			continue
		}
		keep = append(keep, line)
		if len(keep) == 2 {
			break
		}
	}
	if len(keep) == 0 {
		return err.Error()
	}
	return strings.Join(keep, " / ")
}

// git runs git in dir and returns its output, trimmed; its error is
// git's own message when it printed one.
func git(ctx context.Context, dir string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, "git", args...)
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		if msg := strings.TrimSpace(stderr.String()); msg != "" {
			return "", errors.New(msg)
		}
		return "", err
	}
	return strings.TrimSpace(string(out)), nil
}

// removeWorktrees removes the worktrees the gate added under tmp.
func removeWorktrees(top, tmp string) {
	for _, name := range []string{"base", "head"} {
		wt := filepath.Join(tmp, name)
		if _, err := os.Stat(wt); err == nil {
			git(context.Background(), top, "worktree", "remove", "--force", wt)
		}
	}
	git(context.Background(), top, "worktree", "prune")
}
