package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/loopbench/loopbench/internal/harness/gate"
	"github.com/loopbench/loopbench/internal/harness/runner"
	"github.com/loopbench/loopbench/internal/harness/verdict"
	"github.com/loopbench/loopbench/internal/measure/machine"
)

const gateUsage = `usage: loopbench gate [-base REV] [-head REV] [flags]
       loopbench gate -aa [-head REV] [-write-floor FILE] [flags]
       loopbench gate -metric instructions [-base REV | -baseline FILE] [-head REV] [-save FILE] [flags]
       loopbench gate -metric instructions -save-only FILE [-head REV] [flags]

Measures the benchmarks of two revisions of a Go module (-base HEAD~1
and the working tree by default) inside its git checkout, interleaved,
and decides as loopbench compare does whether head regressed: by wall
time in -count rounds, or by instructions counted under callgrind. The
method, the defaults and their measured error rates are in docs/gate.md.

Exit status: 0 pass; 1 a regression; 2 a usage error, or the gate could
not run (one line says why and what each side's file holds); 3 undecided.

Examples:
  loopbench gate -bench 'CallSoon|Timers' -count 10
  loopbench gate -metric instructions -base origin/main -bench 'CallSoon|Timers' -short
  loopbench gate -aa -bench CallSoon -count 10 -write-floor floors.txt

Flags:
`

// parseGate parses gate's flags into checked settings.
func parseGate(args []string, stderr io.Writer) (gate.Settings, error) {
	fs := flag.NewFlagSet("gate", flag.ContinueOnError)
	fs.Usage = func() { fmt.Fprint(stderr, gateUsage); fs.PrintDefaults() }
	var s gate.Settings
	fs.StringVar(&s.Base, "base", "", "base revision (default HEAD~1)")
	fs.StringVar(&s.Head, "head", "", "head revision (default: the working tree)")
	fs.StringVar(&s.Pkg, "pkg", "", "package whose benchmarks to run (default: the module's packages whose benchmarks -bench matches)")
	fs.StringVar(&s.Bench, "bench", ".", "benchmarks to run (-test.bench regexp)")
	fs.IntVar(&s.Count, "count", 10, "rounds; each runs both binaries once (with -min-count: the most rounds)")
	fs.IntVar(&s.MinCount, "min-count", 0, "sequential: decide first after this many rounds, again at each doubling up to -count")
	fs.StringVar(&s.Benchtime, "benchtime", "", "-test.benchtime of each run (default 100ms for wall time; 2ms windows or 20ms for instructions)")
	fs.StringVar(&s.Out, "out", "", "output directory, new or empty (default a new one under the temporary directory)")
	fs.Uint64Var(&s.Seed, "seed", 0, "seed of the per-round order (default: from the clock; the output records it)")
	fs.BoolVar(&s.AA, "aa", false, "calibrate: run the head binary against itself")
	fs.StringVar(&s.WriteFloor, "write-floor", "", "with -aa: write noise floors to this file")
	registerVerdict(fs, &s.Verdict)
	effect := fs.Lookup("min-effect")
	effect.DefValue, s.Verdict.MinEffect = "", ""
	effect.Usage += " (default 5% for wall time; for instructions 0.5% by windows, 1% by the difference of two processes)"
	registerInstructions(fs, &s)
	if err := parseFlags(fs, args, stderr); err != nil {
		return s, err
	}
	s.Given = given(fs)
	if err := s.Check(); err != nil {
		return s, usageError{err.Error()}
	}
	if !s.Given["seed"] {
		s.Seed = uint64(time.Now().UnixNano())
	}
	return s, nil
}

func runGate(args []string, stdout, stderr io.Writer) error {
	s, err := parseGate(args, stderr)
	if err != nil {
		return err
	}
	dir, err := os.Getwd()
	if err != nil {
		return exitError{2, err}
	}
	out := s.Out
	if out == "" {
		out = newDir(filepath.Join(os.TempDir(), gate.OutName(s.Base, s.Head, s.AA, time.Now())))
	} else if err := refuseNonEmpty(out); err != nil {
		return err
	}
	ctx, stop := interruptContext(measuring)
	defer stop()
	stderr = &lockedWriter{w: stderr}
	ticks, stopTicks := newTicks()
	log, stopLog := gateLog(stderr, time.Now(), ticks, stopTicks)
	defer stopLog()
	cfg := s.Config(dir, out, gate.Machine(machine.RunConfig()), log)
	res, j, err := s.Judging().Gate(ctx, cfg, stdout)
	return gateOutput(stdout, s.Verdict.Format, cfg, res, j, judgedExit(err))
}

// gateOutput writes the JSON report when format asks for it, and returns
// err, the gate's exit.
func gateOutput(stdout io.Writer, format string, cfg gate.Config, res *gate.Result, j *verdict.Judgment, err error) error {
	if format != "json" {
		return err
	}
	code, msg := jsonExit(err)
	if werr := gate.NewJSONReport(cfg, res, j, code, msg).Write(stdout); werr != nil && err == nil {
		return exitError{2, werr}
	}
	return err
}

// gateLog is the log of a gate begun at begun: stderr itself on a
// terminal, elsewhere a gate.Progress on it with its heartbeat, which
// stop ends. stderr is a lockedWriter: the heartbeat writes beside the
// gate.
func gateLog(stderr io.Writer, begun time.Time, ticks <-chan time.Time, stopTicks func()) (log io.Writer, stop func()) {
	if isTerminal(stderr) {
		stopTicks()
		return stderr, func() {}
	}
	g := gate.NewProgress(stderr, begun)
	stopBeat := runner.Heartbeat(stderr, ticks, g.Line)
	return g, func() { stopBeat(); stopTicks() }
}
