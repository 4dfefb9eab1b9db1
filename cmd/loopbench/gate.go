package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/loopbench/loopbench/internal/harness/gate"
	"github.com/loopbench/loopbench/internal/harness/verdict"
)

const gateUsage = `usage: loopbench gate [-base REV] [-head REV] [flags]
       loopbench gate -aa [-head REV] [-write-floor FILE] [flags]
       loopbench gate -metric instructions [-base REV | -baseline FILE] [-head REV] [-save FILE] [flags]
       loopbench gate -metric instructions -save-only FILE [-head REV] [flags]

Measures the benchmarks of two revisions of a Go module and decides
whether head regressed against base. Run it inside a git checkout; REV is
anything git rev-parse takes; -head defaults to the working tree (with its
uncommitted changes), -base to HEAD~1; both may name one revision (an A/A
run). It works on any Go module's benchmarks, not only loopbench's:
without -pkg it gates the module's packages whose benchmarks -bench
matches, as go test -bench over ./... would (./bench in loopbench's own
module), each benchmark named with its package where there are several;
a -pkg that does not exist is exit 2. A shallow clone lacks the history
the revisions need: CI checkouts need fetch-depth: 0.

It builds each package's test binary at each revision once (go test -c
-pgo=off, in a temporary git worktree), then runs -count rounds: in each
round both binaries run the benchmarks once (-test.bench, -test.count=1,
-test.benchtime, -test.benchmem), whole processes, in an order drawn at
random per round from -seed, so the machine's drift hits both sides alike.
It writes DIR/base.txt and DIR/head.txt (one side each) and DIR/gate.txt
(both, in the order they ran, under "side" and "commit" lines: benchstat
-col side DIR/gate.txt pivots it; DIR is -out, by default a new directory
under the temporary directory), then prints compare's verdict on them
(see loopbench compare -h): a U test per benchmark and unit, the
family-wise error held at -alpha over the run (Holm), a change counted only
past -min-effect or the benchmark's -floor; allocs/op and B/op by their
amortised rule, never undecided. -count must let the U test reach -alpha
at all (4 rounds at 0.05: the smallest p of 3+3 is 0.1); a smaller one is
refused before anything runs, naming the smallest that can decide. A
timing that is not a significant regression passes, and the verdict prints the smallest slowdown the run
could have flagged; -require-equivalence exits 3 instead until each is
significant or placed within the minimum effect. -format json prints one
object instead of the table (see compare -h). On a terminal each round
is shown as it starts; elsewhere (a CI log) a line every 30 s says the
latest round and the time elapsed.

-aa calibrates: the head binary against itself. It prints what the verdict
flagged (a chance alarm is at most -alpha's share of such runs) and each
benchmark's spread and A/A delta, and -write-floor FILE writes noise
floors for later -floor runs: per configuration group, benchmark and
unit, the upper 95 % bootstrap quantile of the A/A delta (the change such
rounds show by chance in 1 A/A run of 20). It needs -count 8 or more and
writes nothing after an undecided run.

-metric instructions counts instead of timing, under valgrind's
callgrind (GOMAXPROCS=1 GOGC=off
GODEBUG=asyncpreemptoff=1,cpu.rdtscp=off,randautoseed=0,
--cache-sim=yes --collect-systime=nsec, simulated caches pinned to
--I1=32768,8,64 --D1=32768,8,64 --LL=8388608,16,64 so counts compare
between runners). Benchmarks are counted by windows: the binaries are
built with an overlay of the toolchain's testing package (go test -c
-overlay, patched at gate time from $GOROOT/src/testing/benchmark.go),
loopbench's own ./bench as any module's; callgrind
starts with instrumentation off, each benchmark's timed loop alone (b.N
or b.Loop, while its timer runs) is counted and dumped, up to 24
benchmarks share a process, and per op is the window's count over N (n,
what go test runs natively in -benchtime, default 2ms here, rounded down
to 1, 2 or 5 x 10^k). Where the toolchain does not take the patch (one
line says so, naming its Go version), benchmarks are counted by the
difference of two processes per benchmark, at n/10 and n/10+n
iterations (n in -benchtime, default 20ms there), over n. The header says which method a run used. Per op:
instructions/op, est-cycles/op (L1 hits + 5 x last-level hits + 35 x
memory accesses of the cache model, as iai-callgrind), syscalls/op
(those Go code made through the syscall packages, where the repeats
agree: the runtime's own, its clock reads among them, follow wall time
under valgrind and are left out), and B/op and allocs/op from the
benchmark.
Each benchmark is counted -repeat times (2 or more); one whose counts
differ by more than -max-spread on either side is counted again on both,
up to -max-repeat. A window benchmark whose counts still disagree, or
whose sides the verdict's range rule cannot tell apart, is then counted
anew on both sides at ten times its iterations (what time
moves in a window, the runtime's preemptions, comes a few times more or
less a window, so a wider window carries a tenth of it per op), -repeat
times and again up to -max-repeat, and judged on those counts alone;
"widened" lists them. Not against a -baseline (head keeps its
iterations), nor where the widened window would count over 5 x 10^8
instructions (5 x 10^7 where each side's counts agree: sides that
each repeat but differ by about -min-effect are mostly a real change of
that size, which no width decides). Every count is a sample: the verdict judges exact
counts that disagree on their ranges, and what it cannot decide is
undecided (exit 3), never passed. -short runs the benchmarks with
-test.short (loopbench's pull-request set). Each window leaves out the
Go runtime's monitor thread (sysmon), whose share grows with the
window's wall time. Counts do not move with the machine's load, so -j
processes run at once, and -min-effect defaults to 0.5% for windows
(est-cycles/op is judged at twice it, as compare says):
their A/A deltas measured here stay within 0.37% (0.02% on most), and
one added multiply-add in CallLater (+0.6 to +0.9% of a Timers
operation) is past it. A benchmark that skips itself when listed
(b.Skip) is listed under "not counted" with its reason, and counted
after the summary: not judged, never passed. loopbench's harness skips
there what it cannot count: the Go runtime's own timers (impl=afterfunc,
whose counts differed by up to 59% from process to process) and
Wakeup's real waits; judge them by wall time. By the difference of two
processes it defaults to 1% (their A/A spread reaches 0.97%). The files carry "Unit ... assume=exact" lines: compare, report and
benchstat read them as exact; gate.txt holds both sides, as for wall
time. -save FILE keeps head's counts with their iteration counts
(-save-only FILE counts head alone, no verdict: what a push to main
saves; its commit and commit-time lines order it for loopbench history); -baseline FILE judges head against such a file without building
a base, counts head at the baseline's iterations, and refuses one from
another GOARCH, CPU model, Go, valgrind, method or set of flags.
valgrind missing is exit 2. Counts see no kernel time and are not
seconds.

-min-count N makes the wall-time gate sequential: it decides first after
N rounds, again at each doubling, and last at -count, and stops as soon as
every benchmark is decided: significant, or with intervals narrow enough
to place the change within the minimum effect. Each look is held at alpha
over the number of looks, with Holm within it, so the family-wise error
over every look and benchmark stays at -alpha (a Bonferroni split of
alpha over the looks: valid however the looks depend on each other).
Still undecided after the last look passes when not a significant
regression, saying so and the rounds that would likely decide; with
-require-equivalence it is exit 3.

Exit status: 0 pass; 1 a regression; 2 a usage error, or the gate could
not run (not a git checkout, an unknown revision, a package without
benchmarks, a -bench matching nothing at any level, a failed build or
benchmark run, an interrupt; what each side's file holds is printed and
kept in DIR; a gate that measured nothing leaves no DIR; a -count too
small to reach -alpha); 3 undecided: a U test whose samples cannot reach
-alpha (a side's benchmark that ran in fewer rounds), too few rounds to
decide at the corrected level with -require-equivalence
(the message says how many would do), counts the verdict cannot decide
(no decided regression; the summary counts the undecided), or no
benchmark counted under callgrind.

Examples:
  loopbench gate -bench 'CallSoon|Timers' -count 10
  loopbench gate -metric instructions -base origin/main -bench 'CallSoon|Timers' -short
  loopbench gate -base origin/main -head HEAD -bench . -benchtime 100ms
  loopbench gate -aa -bench CallSoon -count 10 -write-floor floors.txt
  loopbench gate -base v1.2.0 -pkg ./internal/codec -floor floors.txt

Flags:
`

type gateFlags struct {
	base, head, pkg, bench, benchtime, out, writeFloor string
	count, minCount                                    int
	seed                                               uint64
	aa                                                 bool
	instr                                              instrFlags
	verdictFlags
}

func parseGate(args []string, stderr io.Writer) (gateFlags, error) {
	fs := flag.NewFlagSet("gate", flag.ContinueOnError)
	fs.Usage = func() { fmt.Fprint(stderr, gateUsage); fs.PrintDefaults() }
	var g gateFlags
	fs.StringVar(&g.base, "base", "", "base revision (default HEAD~1)")
	fs.StringVar(&g.head, "head", "", "head revision (default: the working tree)")
	fs.StringVar(&g.pkg, "pkg", "", "package whose benchmarks to run (default: the module's packages whose benchmarks -bench matches, as go test -bench over ./... would; ./bench in loopbench's module)")
	fs.StringVar(&g.bench, "bench", ".", "benchmarks to run (-test.bench regexp)")
	fs.IntVar(&g.count, "count", 10, "rounds; each runs both binaries once (with -min-count: the most rounds)")
	fs.IntVar(&g.minCount, "min-count", 0, "sequential: decide first after this many rounds, again at each doubling up to -count, and stop once every benchmark is decided (0: -count fixed rounds)")
	fs.StringVar(&g.benchtime, "benchtime", "", "-test.benchtime of each run, a duration or Nx (default 100ms for -metric wall, 2ms windows or 20ms by the difference of two processes for instructions)")
	fs.StringVar(&g.out, "out", "", "output directory (default a new gate-<date>-<base>-<head> under the temporary directory, never overwritten: nothing is written into the checkout)")
	fs.Uint64Var(&g.seed, "seed", 0, "seed of the per-round order (default: from the clock; the output records it)")
	fs.BoolVar(&g.aa, "aa", false, "calibrate: run the head binary against itself")
	fs.StringVar(&g.writeFloor, "write-floor", "", "with -aa: write noise floors to this file")
	g.verdictFlags.register(fs)
	effect := fs.Lookup("min-effect")
	effect.DefValue, g.minEffect = "", ""
	effect.Usage += " (default 5% for -metric wall; for instructions 0.5% by windows, 1% by the difference of two processes)"
	g.instr.register(fs)
	if err := parseFlags(fs, args, stderr); err != nil {
		return g, err
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	if err := g.instr.check(&g, set); err != nil {
		return g, err
	}
	if g.minEffect == "" {
		g.minEffect = "5%"
	}
	if g.benchtime == "" {
		g.benchtime = "100ms"
	}
	switch {
	case g.instr.on() && g.minCount > 0:
		return g, usageError{"-min-count applies to wall time: counts need one look"}
	case g.instr.on():
	case g.minCount != 0 && (g.minCount < 2 || g.minCount > g.count):
		return g, usageError{fmt.Sprintf("-min-count %d: want 2 to -count (%d)", g.minCount, g.count)}
	case g.minCount > 0 && g.aa:
		return g, usageError{"-min-count does not apply to -aa: calibration runs -count rounds"}
	case g.count < 2:
		return g, usageError{fmt.Sprintf("-count %d: one round a side is no evidence for the U test; want at least %d (10 or more to decide at the run's corrected level)", g.count, verdict.SamplesFor(g.alpha))}
	case g.alpha > 0 && g.alpha < 1 && !verdict.Reachable(g.count, g.count, g.lastLevel()):
		return g, usageError{g.countTooSmall()}
	case g.writeFloor != "" && g.count < verdict.MinFloorSamples:
		return g, usageError{fmt.Sprintf("-write-floor needs -count %d or more: a floor is a quantile over the A/A rounds", verdict.MinFloorSamples)}
	case !validBenchtime(g.benchtime):
		return g, usageError{fmt.Sprintf("-benchtime %q: want a positive duration such as 100ms, or Nx", g.benchtime)}
	case g.aa && set["base"]:
		return g, usageError{"-aa runs the head binary against itself: drop -base"}
	case g.writeFloor != "" && !g.aa:
		return g, usageError{"-write-floor needs -aa"}
	case g.force:
		return g, usageError{"-force does not apply to gate: both sides run on this machine"}
	}
	if !set["seed"] {
		g.seed = uint64(time.Now().UnixNano())
	}
	return g, nil
}

// lastLevel is the level of the wall-time gate's last look: -alpha, or
// with -min-count its share over the looks.
func (g *gateFlags) lastLevel() float64 {
	if g.minCount > 0 {
		return verdict.LookAlpha(g.alpha, len(verdict.Looks(g.minCount, g.count)))
	}
	return g.alpha
}

// countTooSmall says why -count cannot decide: its U tests cannot reach
// the last look's level whatever the rounds measure.
func (g *gateFlags) countTooSmall() string {
	level, at := g.lastLevel(), fmt.Sprintf("p<=%g", g.alpha)
	if g.minCount > 0 {
		at = fmt.Sprintf("p<=%.3g (-alpha %g over %s)", level, g.alpha, plural(len(verdict.Looks(g.minCount, g.count)), "look"))
	}
	return fmt.Sprintf("-count %d: the U test on %d+%d rounds cannot reach %s (its smallest p is %.2g), so it could flag nothing; want -count %d or more (10 or more to decide at the run's corrected level)",
		g.count, g.count, g.count, at, verdict.MinP(g.count, g.count), verdict.SamplesFor(level))
}

func validBenchtime(s string) bool {
	if n, ok := strings.CutSuffix(s, "x"); ok {
		v, err := strconv.Atoi(n)
		return err == nil && v > 0
	}
	d, err := time.ParseDuration(s)
	return err == nil && d > 0
}

func runGate(args []string, stdout, stderr io.Writer) error {
	g, err := parseGate(args, stderr)
	if err != nil {
		return err
	}
	o, filter, err := g.options()
	if err != nil {
		return err
	}
	dir, err := os.Getwd()
	if err != nil {
		return exitError{2, err}
	}
	out := g.out
	if out == "" {
		out = newDir(filepath.Join(os.TempDir(), gate.OutName(g.base, g.head, g.aa, time.Now())))
	} else if entries, err := os.ReadDir(out); err == nil && len(entries) > 0 {
		return usageError{fmt.Sprintf("-out %s exists and is not empty: name a new directory", out)}
	}
	ctx, stop := interruptContext(measuring)
	defer stop()
	stderr = &lockedWriter{w: stderr}
	ticks, stopTicks := newTicks()
	log, stopLog := gateLog(stderr, ticks, stopTicks)
	defer stopLog()
	cfg := gate.Config{Dir: dir, Base: g.base, Head: g.head, AA: g.aa, Pkg: g.pkg, Bench: g.bench, Count: g.count,
		Benchtime: g.benchtime, Seed: g.seed, Out: out, Machine: gate.Machine(machineConfig()), Log: log}
	g.instr.apply(&cfg, o.MinEffect)
	jg := &gate.Judging{Options: o, Filter: filter, WriteFloor: g.writeFloor, DefaultEffect: g.instr.defaultEffect,
		MaxSpread: g.instr.maxSpread, Save: g.instr.save, SaveOnly: g.instr.saveOnly, JSON: g.format == "json"}
	if g.minCount > 0 {
		jg.Sequential = gate.NewSequential(g.minCount, g.count, o.Alpha)
		cfg.Stop = jg.Sequential.Stop(out, o, filter, stderr)
		jg.Options.Alpha = jg.Sequential.Level
	}
	created := gate.MissingDirs(out)
	res, err := gate.Run(ctx, cfg)
	if err != nil {
		return g.output(stdout, cfg, res, nil, exitError{2, gate.Failed(res, created, err)})
	}
	j, err := jg.Judge(stdout, cfg, res)
	return g.output(stdout, cfg, res, j, judgedExit(err))
}

// output writes the JSON report when -format json asks for it, and
// returns err, the gate's exit.
func (g gateFlags) output(stdout io.Writer, cfg gate.Config, res *gate.Result, j *verdict.Judgment, err error) error {
	if g.format != "json" {
		return err
	}
	code, msg := jsonExit(err)
	if werr := gate.NewJSONReport(cfg, res, j, code, msg).Write(stdout); werr != nil && err == nil {
		return exitError{2, werr}
	}
	return err
}

// gateLog is the gate's log: stderr itself on a terminal, elsewhere a
// gateProgress on it with its heartbeat, which stop ends. stderr is a
// lockedWriter: the heartbeat writes beside the gate.
func gateLog(stderr io.Writer, ticks <-chan time.Time, stopTicks func()) (log io.Writer, stop func()) {
	if isTerminal(stderr) {
		stopTicks()
		return stderr, func() {}
	}
	g := &gateProgress{w: stderr, begun: time.Now()}
	stopBeat := heartbeat(stderr, ticks, g.line)
	return g, func() { stopBeat(); stopTicks() }
}
