package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/loopbench/loopbench/bench"
	"github.com/loopbench/loopbench/internal/harness/load"
	"github.com/loopbench/loopbench/internal/harness/report"
	"github.com/loopbench/loopbench/internal/harness/runner"
	"github.com/loopbench/loopbench/internal/harness/serve"
	"github.com/loopbench/loopbench/internal/harness/servercost"
	"github.com/loopbench/loopbench/internal/measure/loadresult"
	"github.com/loopbench/loopbench/internal/measure/machine"
	"github.com/loopbench/loopbench/peers"
	"golang.org/x/perf/benchfmt"
)

// asCLI, set to 1 in a child's environment, makes loopbench's test binary
// run the command line it is given, as loopbench would (see TestMain).
const asCLI = "LOOPBENCH_AS_CLI"

const peersUsage = `usage: loopbench peers [flags]
       loopbench peers -sweep RATES [flags]

Runs asyncio, uvloop, libuv, libev and libevent on loopbench's workloads,
and liburing on libevent's bench.c, in the same shapes, interleaved with
loopbench's own in -count rounds of random order. The peers are programs
in peers/, built on demand from Debian's packages; a peer that is not
installed is skipped with one line naming its package:
  apt install python3-uvloop python3-httptools libuv1-dev libev-dev libevent-dev liburing-dev pkg-config gcc

The echo servers are compared on the server side: CPU and context
switches per answered request (-syscalls: system calls too) at two fixed
open-loop rates every server meets, each server on CPU 0 and the C floor
client on CPU 1. -proto http does the same for HTTP/1.1 servers; -sweep
sweeps the echo servers as load -sweep does. Writes raw.txt and the
report of loopbench report. The workloads, the rows and the method:
docs/peers.md; the flags: docs/cli.md, section Peers.

Exit status: 0 done (a peer not installed is skipped in one line); 1 a
peer run failed, the run was interrupted or nothing was measured (the
report covers what was); 2 a usage error, or an -out that is not empty.

Examples:
  loopbench peers -count 5
  loopbench peers -quick -count 1 -peers libev,libuv
  loopbench peers -count 3 -syscalls
  loopbench peers -count 3 -proto http -peers asyncio,uvloop,libuv
  loopbench peers -sweep 2000:400000:x1.4 -slo 1ms

Flags:
`

type peersFlags struct {
	cfg   servercost.Config // the run, less what runPeers wires in
	names []string
	out   string
	args  []string
	sweep peersSweep
}

func parsePeers(args []string, stderr io.Writer) (peersFlags, error) {
	fs := flag.NewFlagSet("peers", flag.ContinueOnError)
	fs.Usage = func() { fmt.Fprint(stderr, peersUsage); fs.PrintDefaults() }
	f := peersFlags{args: args}
	c := &f.cfg
	fs.IntVar(&c.Count, "count", 5, "rounds")
	fs.DurationVar(&c.Benchtime, "benchtime", 500*time.Millisecond, "time a measurement takes at least (20ms with -quick)")
	fs.DurationVar(&c.EchoTime, "echotime", 3*time.Second, "measured time of each echo load (300ms with -quick)")
	list := fs.String("peers", strings.Join(peers.Names, ","), "peers to run")
	fs.BoolVar(&c.Quick, "quick", false, "tiny sizes: a smoke run, not a measurement")
	fs.BoolVar(&c.NoEcho, "no-echo", false, "skip the echo servers")
	fs.BoolVar(&c.TLS, "tls", false, "also measure the echo servers over TLS: round trips and full handshakes")
	fs.StringVar(&c.Proto, "proto", "echo", "what the servers speak: echo, or http (HTTP/1.1 keep-alive servers answering GET / with -size 1024 bytes)")
	fs.BoolVar(&c.Syscalls, "syscalls", false, "also count the echo servers' system calls per request at the fixed rates (perf stat, Linux)")
	fs.StringVar(&f.out, "out", "", "results directory, new or empty (default results/<date>-<host>-<commit>-peers)")
	fs.Uint64Var(&c.Seed, "seed", 0, "seed of the per-round order (default: from the clock)")
	f.sweep.register(fs)
	if err := parseFlags(fs, args, stderr); err != nil {
		return f, err
	}
	set := given(fs)
	switch {
	case c.Count < 1:
		return f, usageError{fmt.Sprintf("-count %d: want at least 1 round", c.Count)}
	case c.Benchtime <= 0:
		return f, usageError{fmt.Sprintf("-benchtime %v: want a positive duration", c.Benchtime)}
	case c.EchoTime <= 0:
		return f, usageError{fmt.Sprintf("-echotime %v: want a positive duration", c.EchoTime)}
	}
	if err := f.checkProto(); err != nil {
		return f, err
	}
	for _, n := range splitList(*list) {
		if !slices.Contains(peers.Names, n) {
			return f, usageError{fmt.Sprintf("-peers: unknown peer %q (valid: %s)", n, strings.Join(peers.Names, ", "))}
		}
		f.names = append(f.names, n)
	}
	if err := f.sweep.check(&f, set); err != nil {
		return f, err
	}
	return f, f.defaults(set)
}

// checkProto validates -proto: echo or http, and http with neither
// -tls, -sweep nor -no-echo.
func (f peersFlags) checkProto() error {
	switch c := f.cfg; {
	case c.Proto != "echo" && c.Proto != servercost.HTTP:
		return usageError{fmt.Sprintf("-proto %q: want echo or http", c.Proto)}
	case c.Proto == servercost.HTTP && c.TLS:
		return usageError{"-proto http does not go with -tls: the TLS rows are the echo servers'"}
	case c.Proto == servercost.HTTP && f.sweep.spec != "":
		return usageError{"-proto http does not go with -sweep: the sweeps are the echo servers'"}
	case c.Proto == servercost.HTTP && c.NoEcho:
		return usageError{"-proto http does not go with -no-echo, which skips the servers"}
	}
	return nil
}

// defaults fills in what the flags not given (set) default to, and
// checks -out.
func (f *peersFlags) defaults(set map[string]bool) error {
	if f.cfg.Quick && !set["benchtime"] {
		f.cfg.Benchtime = 20 * time.Millisecond
	}
	if f.cfg.Quick && !set["echotime"] {
		f.cfg.EchoTime = 300 * time.Millisecond
	}
	if !set["seed"] {
		f.cfg.Seed = uint64(time.Now().UnixNano())
	}
	if f.out == "" {
		f.out = newDir(filepath.Join("results", machine.RunName(time.Now())+"-peers"))
	}
	return refuseNonEmpty(f.out)
}

func runPeers(args []string, stdout, stderr io.Writer) error {
	f, err := parsePeers(args, stderr)
	if err != nil {
		return err
	}
	stderr = &lockedWriter{w: stderr} // the servers' stderr goes there too
	ctx, stop := interruptContext(measuring)
	defer stop()
	names := f.names
	if f.cfg.Sweep != nil {
		names = servercost.Sweepable(names, stderr)
	}
	ready, skipped := peers.Find(ctx, names, peers.CacheDir())
	for _, s := range skipped {
		fmt.Fprintf(stderr, "loopbench peers: skipped %s\n", s)
	}
	if err := os.MkdirAll(f.out, 0o755); err != nil {
		return err
	}
	rawPath := filepath.Join(f.out, "raw.txt")
	raw, err := os.Create(rawPath)
	if err != nil {
		return err
	}
	writeRawHeader(raw, "peers", f.args, f.cfg.Seed)
	res, runErr := servercost.Run(ctx, f.wire(ready, raw, stderr))
	if err := raw.Close(); err != nil {
		return err
	}
	fmt.Fprintf(stderr, "results: %s\n", f.out)
	return reportPeers(f, res, runErr, rawPath, stdout, stderr)
}

// wire completes the run's configuration: the peers found, raw.txt, the
// servers' launcher, and the command's own writers.
func (f peersFlags) wire(ready []*peers.Peer, raw io.Writer, stderr io.Writer) servercost.Config {
	bw := benchfmt.NewWriter(raw) // the sweeps write their results beside the cases'
	cfg := f.cfg
	cfg.Ready, cfg.Raw, cfg.Out, cfg.Stderr = ready, raw, bw, stderr
	// The servers are this executable's serve (the test binary as
	// loopbench, with asCLI), this process pinned as -cpu pins.
	cfg.Launcher = serve.Launcher{Env: append(os.Environ(), asCLI+"=1"), Stderr: stderr, Pin: load.PinSpare}
	cfg.Cmd = servercost.Cmd{MeasureCase: func(c bench.Case, d time.Duration) (bench.Result, error) {
		return runner.MeasureCase(c, d, measure)
	}, WriteCase: runner.NewWriter(bw).WriteCase, FirstError: load.FirstError}
	if s := cfg.Sweep; s != nil {
		s.Units, s.CPUs = load.SweepUnits, load.UsableCPUs
		s.Write = func(c load.Config, slo time.Duration, sw load.Sweep) error {
			return load.WriteSweepResults(bw, c, load.UsableCPUs(), slo, sw, nil)
		}
	}
	return cfg
}

// reportPeers writes the verdict and the report of a run that ended
// with runErr, and returns the run's error.
func reportPeers(f peersFlags, res servercost.Outcome, runErr error, rawPath string, stdout, stderr io.Writer) error {
	if res.Measured == 0 {
		if runErr != nil {
			return runErr
		}
		return errors.New("nothing was measured")
	}
	res.WriteVerdict(stdout)
	repErr := writeReport(stdout, stderr, []string{rawPath}, f.out, nil, "loopbench and its peers", report.Layout{})
	if f.cfg.Sweep != nil {
		if err := report.WriteSweepReport(stdout, stderr, []string{rawPath}, f.out, "p99"); err != nil && repErr == nil {
			repErr = err
		}
	}
	if runErr != nil {
		return runErr
	}
	if res.Failures > 0 {
		return fmt.Errorf("%s failed (reported above); the report covers the rest", loadresult.Plural(res.Failures, "peer run"))
	}
	return repErr
}
