package gate

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/loopbench/loopbench/internal/harness/callgrind"
	"github.com/loopbench/loopbench/internal/measure/benchdata"
	"golang.org/x/perf/benchfmt"
)

// InstructionUnits are the units an instruction gate writes, all exact:
// counts that do not move with the machine's load.
var InstructionUnits = []string{"instructions/op", "est-cycles/op", "syscalls/op"}

// Nondeterministic is a benchmark whose repeated counts disagreed more
// than the options allow after its re-counts: it is reported, and every
// repeat is written, so that the verdict judges it on its ranges.
type Nondeterministic struct {
	Side, Name string
	Spread     float64
}

// Widened is a benchmark counted at wider windows: Iters iterations.
type Widened struct {
	Name  string
	Iters int
}

// Widen is how many times its iterations a window gets when its
// benchmark's repeats still disagree after -max-repeat, or the range
// rule cannot tell its sides apart (callgrind.Options.Widen), unless
// head is compared with a saved baseline (whose iteration counts it must
// keep).
const Widen = 10

// BaselineKeys must agree between a saved baseline and the head it is
// compared with: the CPU model too, since the Go runtime picks its
// memmove, memclr and hashing code by the CPU's features.
var BaselineKeys = []string{"goarch", "cpu", "go", "valgrind", "callgrind"}

// Methods name how an instruction gate counted, as its files and header
// say.
const (
	MethodWindow     = "window"     // each benchmark's timed loop, by client requests
	MethodDifference = "difference" // the difference of two processes
)

// measureInstructions runs the instructions metric: one round of counts
// under callgrind into base.txt and head.txt, and both into gate.txt. It
// returns the failed side's build error, if any, once the other is
// measured.
func measureInstructions(ctx context.Context, cfg Config, res *Result, failed *Side, vg callgrind.Valgrind) error {
	sides := res.sides()
	for _, s := range sides {
		s.Path = filepath.Join(cfg.Out, s.Name+".txt")
	}
	if err := runInstructions(ctx, cfg, res, sides, vg); err != nil {
		if ctx.Err() != nil {
			writeGateFile(res) // what was measured, as the side files
		}
		return err
	}
	res.Rounds = 1
	if matchedNothing(res, cfg) {
		return errorf("-bench %q matches no benchmark in %s at any level (none listed under -test.benchtime %s)", cfg.Bench, res.Head.packages(), cfg.Benchtime)
	}
	if err := writeGateFile(res); err != nil {
		return err
	}
	if failed != nil {
		return failed.err
	}
	return nil
}

// runInstructions measures each side's benchmarks under callgrind v and
// writes their per-op counts to the side files and gate.txt.
func runInstructions(ctx context.Context, cfg Config, res *Result, sides []*Side, v callgrind.Valgrind) error {
	tasks, owner, method, err := listTasks(ctx, cfg, sides, res)
	if err != nil {
		return err
	}
	res.Method = method
	o := cfg.Callgrind
	o.Tmp = cfg.Out
	if cfg.Baseline != "" {
		o.Widen = 0
	}
	var processes int
	results := v.Measure(ctx, tasks, o, func(done, total int) {
		processes = done
		fmt.Fprintf(cfg.Log, "%s%d of %d processes under callgrind\n", CountedPrefix, done, total)
	})
	fmt.Fprintf(cfg.Log, "callgrind: %d processes; the benchmark processes' CPU time so far (listings included): %.1f s\n",
		processes, callgrind.ProcessCPU().Seconds())
	interrupted := ctx.Err() != nil
	n, err := writeSides(cfg, runConfig(cfg, v, method), sides, results, owner, interrupted, res)
	if err != nil {
		return err
	}
	if interrupted {
		return errorf("interrupted: %d of %d benchmarks (both sides) measured on every repeat and count, kept in %s", n, len(tasks), cfg.Out)
	}
	if cfg.Baseline != "" {
		return useBaseline(cfg.Baseline, res)
	}
	return nil
}

// writeSides writes each measured side's results to its file and returns
// how many benchmarks it wrote. After an interrupt (partial) a benchmark not measured
// on every repeat and count is left out rather than failing the side, so
// that nothing measured is lost.
func writeSides(cfg Config, run [][2]string, sides []*Side, results []callgrind.Result, owner []*Side, partial bool, res *Result) (int, error) {
	written := 0
	for _, s := range sides {
		if !measured(cfg, s) {
			continue
		}
		var mine []callgrind.Result
		for i, r := range results {
			switch {
			case owner[i] != s:
			case r.Err == nil:
				mine = append(mine, r)
			case !partial:
				return written, errorf("%s: %v", s.Name, r.Err)
			}
		}
		if err := writeCounts(s, run, mine, res); err != nil {
			return written, err
		}
		written += len(mine)
		s.Runs = 1
	}
	return written, nil
}

// listTasks lists each measured side's benchmarks natively for the
// benchtime and returns them as tasks with their sides, and the method
// that counts them: windows when every measured binary has them. A benchmark both sides have is
// counted at the same iteration counts on both: the saved baseline's,
// else those of head's listing. Those a harness skipped go to
// res.NotCounted. Where more than one package is gated, benchmarks are
// named with their package (res.pkgOf).
func listTasks(ctx context.Context, cfg Config, sides []*Side, res *Result) ([]callgrind.Task, []*Side, string, error) {
	iters, err := baselineIters(cfg.Baseline)
	if err != nil {
		return nil, nil, "", err
	}
	bins, window := measuredBinaries(cfg, sides, res)
	method := MethodDifference
	if window {
		method = MethodWindow
	}
	// Head first; an A/A gate's one binary is listed once.
	listed := map[string][]callgrind.Listed{} // by binary
	for i := len(sides) - 1; i >= 0; i-- {
		for _, b := range bins[sides[i]] {
			if _, ok := listed[b.Path]; ok {
				continue
			}
			b.Window = window
			ls, skipped, err := list(ctx, b, cfg, iters, res.qualify(b.Path, ""))
			if err != nil {
				return nil, nil, "", errorf("%s: listing the benchmarks: %v", sides[i].Name, err)
			}
			for _, sk := range skipped {
				sk.Name = res.qualify(b.Path, sk.Name)
				if !slices.ContainsFunc(res.NotCounted, func(x callgrind.Skipped) bool { return x.Name == sk.Name }) {
					res.NotCounted = append(res.NotCounted, sk)
				}
			}
			for _, l := range ls {
				if k := res.qualify(b.Path, l.Name); iters[k] == 0 {
					iters[k] = l.Iters
				}
			}
			listed[b.Path] = ls
		}
	}
	var tasks []callgrind.Task
	var owner []*Side
	for _, s := range sides {
		for _, b := range bins[s] {
			b.Window = window
			for _, l := range listed[b.Path] {
				tasks = append(tasks, callgrind.Task{Binary: b, Name: l.Name, Iters: taskIters(window, iters[res.qualify(b.Path, l.Name)])})
				owner = append(owner, s)
			}
		}
	}
	return tasks, owner, method, nil
}

// measuredBinaries are the test binaries of each measured side and
// whether every one of them counts windows (its testing package was
// built with the overlay: callgrind.HasWindows). Where they are of
// more than one package, res.pkgOf maps each binary to its package.
func measuredBinaries(cfg Config, sides []*Side, res *Result) (map[*Side][]callgrind.Binary, bool) {
	bins := map[*Side][]callgrind.Binary{}
	window := true
	pkgs := map[string]string{} // import path by binary
	for _, s := range sides {
		if !measured(cfg, s) {
			continue
		}
		for _, sb := range s.bins {
			b := callgrind.Binary{Path: sb.path, Dir: sb.dir, Window: callgrind.HasWindows(sb.path)}
			if cfg.Short {
				b.Args = []string{"-test.short"}
			}
			bins[s], window = append(bins[s], b), window && b.Window
			pkgs[sb.path] = sb.importPath
		}
	}
	distinct := map[string]bool{}
	for _, p := range pkgs {
		distinct[p] = true
	}
	if len(distinct) > 1 {
		res.pkgOf = pkgs
	}
	return bins, window
}

// qualify names benchmark name of the binary at path with its package,
// "import/path.Name", where more than one package is gated (just the
// package for ""); else it is name.
func (r *Result) qualify(path, name string) string {
	pkg, ok := r.pkgOf[path]
	switch {
	case !ok:
		return name
	case name == "":
		return pkg
	}
	return pkg + "." + name
}

// list lists b's benchmarks matching cfg.Bench. When iters (a saved
// baseline's, or the other side's listing) already hold the iteration
// counts of all of them, one iteration each (-benchtime 1x) is enough to
// learn their names; else they run natively for cfg.Benchtime.
func list(ctx context.Context, b callgrind.Binary, cfg Config, iters map[string]int, pkg string) ([]callgrind.Listed, []callgrind.Skipped, error) {
	if len(iters) > 0 {
		ls, skipped, err := b.List(ctx, cfg.Bench, "1x")
		if err != nil || known(ls, iters, pkg) {
			return ls, skipped, err
		}
	}
	return b.List(ctx, cfg.Bench, benchtime(cfg, b.Window))
}

// benchtime is the native benchtime that sizes the counts: windows'
// own when set.
func benchtime(cfg Config, window bool) string {
	if window && cfg.Callgrind.WindowBenchtime != "" {
		return cfg.Callgrind.WindowBenchtime
	}
	return cfg.Benchtime
}

// known says iters holds the iteration counts of every benchmark of ls,
// of package pkg where benchmarks are named with their package ("" where
// not).
func known(ls []callgrind.Listed, iters map[string]int, pkg string) bool {
	for _, l := range ls {
		k := l.Name
		if pkg != "" {
			k = pkg + "." + k
		}
		if _, ok := iters[k]; !ok {
			return false
		}
	}
	return true
}

// measured says side s is counted: it built, and it is not the base
// side of a gate against a saved baseline or of one that counts head
// alone.
func measured(cfg Config, s *Side) bool {
	return s.err == nil && !(s.Name == "base" && (cfg.Baseline != "" || cfg.HeadOnly))
}

// taskIters are the iteration counts of a benchmark that ran n iterations
// natively, or n per op in a baseline.
func taskIters(window bool, n int) [2]int {
	if window {
		return callgrind.WindowIters(n)
	}
	return callgrind.IterCounts(n)
}

// baselineIters are the iterations of each benchmark of a saved
// baseline (none without one): head is counted at the same.
func baselineIters(path string) (map[string]int, error) {
	iters := map[string]int{}
	if path == "" {
		return iters, nil
	}
	s, err := benchdata.ReadFile(path, nil)
	if err != nil {
		return nil, errorf("-baseline: %v", err)
	}
	for _, res := range s.Raw {
		name := string(res.Name.Full())
		if pkg := res.GetConfig("pkg"); pkg != "" {
			name = pkg + "." + name
		}
		iters[name] = res.Iters
	}
	return iters, nil
}

// runConfig is the configuration an instruction count depends on.
func runConfig(cfg Config, v callgrind.Valgrind, method string) [][2]string {
	flags := strings.Join(callgrind.Flags, " ")
	env := callgrind.Env
	if method == MethodWindow {
		flags += " " + callgrind.WindowFlag
		env = callgrind.WindowEnv()
	}
	flags += " " + strings.Join(env, " ")
	// Both methods leave the monitor thread out: counts from before they
	// did are not comparable.
	method += " without=" + callgrind.SysmonFunc
	set := "full"
	if cfg.Short {
		set = "short"
	}
	return append(cfg.Machine[:len(cfg.Machine):len(cfg.Machine)],
		[2]string{"metric", "instructions"},
		[2]string{"valgrind", v.Version},
		[2]string{"callgrind", fmt.Sprintf("%s method=%s", flags, method)},
		[2]string{"set", set}) // not a baseline key: a -short head compares with a full baseline
}

// writeCounts writes side s's counts, one line per benchmark and repeat:
// every repeat is a sample of an exact unit, none set aside, and the
// verdict judges repeats that disagree on their ranges. Those not
// deterministic on s are also reported.
func writeCounts(s *Side, run [][2]string, rs []callgrind.Result, res *Result) error {
	f, err := os.Create(s.Path)
	if err != nil {
		return errorf("%v", err)
	}
	defer f.Close()
	w := benchfmt.NewWriter(f)
	for _, u := range InstructionUnits {
		if err := w.Write(&benchfmt.UnitMetadata{UnitMetadataKey: benchfmt.UnitMetadataKey{Unit: u, Key: "assume"}, OrigUnit: u, Value: "exact"}); err != nil {
			return errorf("%v", err)
		}
	}
	var config []benchfmt.Config
	side := [][2]string{{"commit", s.Commit}, {"side", s.Name}}
	if s.CommitTime != "" {
		side = slices.Insert(side, 1, [2]string{"commit-time", s.CommitTime})
	}
	for _, kv := range append(run, side...) {
		config = append(config, benchfmt.Config{Key: kv[0], Value: []byte(kv[1]), File: true})
	}
	for _, r := range rs {
		name := res.qualify(r.Binary.Path, r.Name)
		if r.Widened && s.Name == "head" {
			res.Widened = append(res.Widened, Widened{name, r.Iters[1]})
		}
		if !r.Deterministic {
			res.Nondeterministic = append(res.Nondeterministic, Nondeterministic{s.Name, name, r.Spread})
		}
		config := config
		if pkg := res.qualify(r.Binary.Path, ""); pkg != "" {
			config = append(config[:len(config):len(config)], benchfmt.Config{Key: "pkg", Value: []byte(pkg), File: true})
		}
		for _, m := range r.PerOp {
			vals := []benchfmt.Value{{Value: m.Ir, Unit: "instructions/op"}, {Value: m.EstCycles(), Unit: "est-cycles/op"}}
			if r.SyscallsAgree {
				vals = append(vals, benchfmt.Value{Value: m.SysCount, Unit: "syscalls/op"})
			}
			vals = append(vals, memoryValues(r)...)
			err := w.Write(&benchfmt.Result{Config: config, Name: benchfmt.Name(r.Name), Iters: r.Iters[1] - r.Iters[0], Values: vals})
			if err != nil {
				return errorf("%v", err)
			}
		}
	}
	return nil
}

// memoryValues are r's B/op and allocs/op where the repeats agree. Under
// one allocation per operation B/op is left out: it is then the
// benchmark's setup and the runtime's own allocations spread over the
// operations (0 in one process, 3 in the next, seen here), not what an
// operation allocates; allocs/op still catches an operation that starts
// allocating.
func memoryValues(r callgrind.Result) []benchfmt.Value {
	if !r.MemoryAgree {
		return nil
	}
	allocs := benchfmt.Value{Value: r.AllocsPerOp, Unit: "allocs/op"}
	if r.AllocsPerOp < 1 {
		return []benchfmt.Value{allocs}
	}
	return []benchfmt.Value{{Value: r.BytesPerOp, Unit: "B/op"}, allocs}
}

// useBaseline makes a saved file the base side, refusing one measured
// under another architecture, Go, valgrind or set of flags.
func useBaseline(path string, res *Result) error {
	base, err := benchdata.ReadFile(path, nil)
	if err != nil {
		return errorf("-baseline: %v", err)
	}
	head, err := benchdata.ReadFile(res.Head.Path, nil)
	if err != nil && !errors.Is(err, benchdata.ErrNoResults) {
		return errorf("%v", err)
	}
	for _, k := range BaselineKeys {
		b, h := strings.Join(base.Keys[k], ","), ""
		if head != nil {
			h = strings.Join(head.Keys[k], ",")
		}
		if b != h {
			return errorf("-baseline %s was measured with %s %q, this gate with %q: measure a new baseline", path, k, b, h)
		}
	}
	res.Base.Path = path
	return nil
}
