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

Runs asyncio, uvloop, libuv, libev and libevent on loopbench's workloads,
and liburing on libevent's bench.c, in the same shapes, interleaved with
loopbench's own on its default variant (on the shape's selector for
IOChain): each of -count rounds runs every system once on every workload,
in an order drawn at random per round. The peers are programs in peers/
(Python on asyncio.new_event_loop() and uvloop.new_event_loop(); C on the
libraries' Debian packages), built on demand into a cache directory.

The echo servers are compared on the server side first: what each costs
the machine per answered request at fixed open-loop rates every server
meets. At a closed loop the servers (all but the slowest) meet the
generator's ceiling, so req/s there compares clients more than servers.

  ServerCost .../size=1024/conns=50/rate=R
                                  each echo server (loopbench's protocol-,
                                  task- and stream-style servers on the
                                  default variant, gonet, and the peers'
                                  asyncio, uvloop, libuv) in its own process
                                  on CPU 0, driven by the C floor client on
                                  CPU 1 open loop at R: server-cpu-ns/req
                                  (its utime+stime from /proc over the
                                  answered requests), server-cs/req (its
                                  threads' voluntary and involuntary
                                  context switches), with req/s, p50-ns and
                                  p99-ns beside. The rates are a quarter
                                  and a half of the floor client's
                                  closed-loop ceiling against loopbench,
                                  measured first (rounded down to two
                                  figures; raw.txt and stderr say them). A
                                  server that does not meet a rate (errors,
                                  or under 99 % of rate x time answered) is
                                  said in one line, with no figure
  ServerSyscalls .../rate=R       with -syscalls, in a window of its own
                                  under perf stat: server-syscalls/req and
                                  server-runtime-syscalls/req (futex and
                                  nanosleep); where perf is missing or
                                  refused, one line says so
The output opens with each server's figures against loopbench's
protocol-style server, judged as compare judges two files.

With -proto http the servers are HTTP/1.1 keep-alive servers answering
GET / with 200 and 1024 bytes of body: loopbench's protocol- and
stream-style servers (serve -proto http) on the default variant, gonet
(Go's net/http), asyncio and uvloop with httptools (an asyncio.Protocol
feeding httptools.HttpRequestParser, answering in on_message_complete, as
vmbench's), and libuv's minimal responder in C. Their rows are the same,
named .../proto=http/size=1024/...: ServerCost and ServerSyscalls driven
by loopbench load -proto http in this process on CPU 1 (no warm-up, so
every request it sends is counted; the C floor client speaks the echo
protocol only), the rates a quarter and a half of its closed-loop ceiling
against loopbench's protocol-style HTTP server; and HTTPServer
.../size=1024/conns=N, load -proto http's closed loop (no EchoFloor
lines). A Python peer without httptools is skipped in one line naming
python3-httptools. -tls and -sweep are the echo servers'.

Workloads (names as loopbench's, /impl=<peer> for the peers):
  CallSoon mode=inflight/w=1000   1000 callbacks re-posting themselves
  CallSoon mode=chain             one in flight, one idle fd watched
  Timers op=cold-fire/k=...       a fresh loop, k timers in [0, 100 ms),
                                  run until all fired: cpu-ns/timer
  Timers op=cold-cancel/k=...     k timers at +10 s, then all cancelled
  IOChain p=.../a=.../mode=once   libevent's bench.c, on epoll and poll,
                                  the loop run one iteration at a time;
                                  on uring, loopbench's uring selector
                                  beside liburing's poll requests alone
                                  (not measured, in one line, where the
                                  kernel refuses io_uring)
  EchoServer size=1024/conns=N    each server (loopbench's protocol-style
                                  server, gonet, asyncio, uvloop, libuv)
                                  in its own process on CPU 0, measured by
                                  loopbench load on CPU 1, closed loop:
                                  throughput, where the client is the limit
  EchoServer style=tls/...        with -tls: the same over TLS 1.3
                                  (loopbench, gonet on crypto/tls, asyncio
                                  and uvloop with Python's ssl), and
                                  op=handshake/conns=N: full handshakes
                                  (ECDSA P-256, X25519) per second
  EchoFloor size=1024/conns=N     beside each plain EchoServer load, the
                                  C floor client (peers/c/floor.c: one
                                  thread, epoll_pwait2, 1 ns timer slack as
                                  loopbench's generator: floor-slack in
                                  raw.txt) in the same shape against the
                                  same server: cpu-ns/req is the least a
                                  generator costs here
  Wakeup wait=200us               how late a 200 µs timer fires on
                                  loopbench's default variant, and how
                                  late the floor's clock_nanosleep (1 ns
                                  timer slack) wakes, and how late its
                                  busy wait ends (impl=cfloor-spin: only
                                  when the CPU was taken away, the floor
                                  of load -spin): the machine's floors

Writes raw.txt (with each peer's version as a configuration line) and the
report of loopbench report, whose tables put the systems side by side with
ratios to loopbench. A peer that is not installed is skipped with one line
naming the Debian package that provides it; a failed build or run is
reported with its error and the others go on.

With -sweep SPEC, the echo servers instead: loopbench's protocol-, task-
and stream-style servers on the default variant, gonet, and the peers'
(libuv, uvloop, asyncio), each in its own process pinned to CPU 0 while
loopbench load sweeps it from CPU 1 (load -sweep: open-loop steps of rising
rate, -sweep-conns connections of 1024 bytes, a -steptime window each),
one server after the other in a random order. raw.txt holds every step and
knee; sweeps.svg puts the servers on one plot at the corrected p99 and
sweeps.md tables their knees. Where the C floor client builds, each
server is then driven by it too, open loop at every rate its sweep ran
(LoadFloor lines: req/s, p99-ns, lag-p99-ns, cpu-ns/req), after one
Wakeup measurement: the least a generator is late and costs, same run;
and then at the fixed rates, for its ServerCost lines.

Install the peers on Debian:
  apt install python3-uvloop python3-httptools libuv1-dev libev-dev libevent-dev liburing-dev pkg-config gcc

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
