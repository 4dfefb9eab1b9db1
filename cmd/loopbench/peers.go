package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/loopbench/loopbench"
	"github.com/loopbench/loopbench/bench"
	"github.com/loopbench/loopbench/internal/harness/rounds"
	"github.com/loopbench/loopbench/peers"
	"github.com/loopbench/loopbench/selectors"
)

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
	proto     string // the servers': echo, or http (httpProto)
	count     int
	benchtime time.Duration
	echoTime  time.Duration
	names     []string
	quick     bool
	noEcho    bool
	tls       bool
	syscalls  bool
	out       string
	seed      uint64
	args      []string
	sweep     peersSweep
}

func parsePeers(args []string, stderr io.Writer) (peersFlags, error) {
	fs := flag.NewFlagSet("peers", flag.ContinueOnError)
	fs.Usage = func() { fmt.Fprint(stderr, peersUsage); fs.PrintDefaults() }
	f := peersFlags{args: args}
	fs.IntVar(&f.count, "count", 5, "rounds")
	fs.DurationVar(&f.benchtime, "benchtime", 500*time.Millisecond, "time a measurement takes at least (20ms with -quick)")
	fs.DurationVar(&f.echoTime, "echotime", 3*time.Second, "measured time of each echo load (300ms with -quick)")
	list := fs.String("peers", strings.Join(peers.Names, ","), "peers to run")
	fs.BoolVar(&f.quick, "quick", false, "tiny sizes: a smoke run, not a measurement")
	fs.BoolVar(&f.noEcho, "no-echo", false, "skip the echo servers")
	fs.BoolVar(&f.tls, "tls", false, "also measure the echo servers over TLS: round trips and full handshakes")
	fs.StringVar(&f.proto, "proto", "echo", "what the servers speak: echo, or http (HTTP/1.1 keep-alive servers answering GET / with -size 1024 bytes)")
	fs.BoolVar(&f.syscalls, "syscalls", false, "also count the echo servers' system calls per request at the fixed rates (perf stat, Linux)")
	fs.StringVar(&f.out, "out", "", "results directory, new or empty (default results/<date>-<host>-<commit>-peers)")
	fs.Uint64Var(&f.seed, "seed", 0, "seed of the per-round order (default: from the clock)")
	f.sweep.register(fs)
	if err := parseFlags(fs, args, stderr); err != nil {
		return f, err
	}
	set := map[string]bool{}
	fs.Visit(func(fl *flag.Flag) { set[fl.Name] = true })
	switch {
	case f.count < 1:
		return f, usageError{fmt.Sprintf("-count %d: want at least 1 round", f.count)}
	case f.benchtime <= 0:
		return f, usageError{fmt.Sprintf("-benchtime %v: want a positive duration", f.benchtime)}
	case f.echoTime <= 0:
		return f, usageError{fmt.Sprintf("-echotime %v: want a positive duration", f.echoTime)}
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
	if f.quick && !set["benchtime"] {
		f.benchtime = 20 * time.Millisecond
	}
	if f.quick && !set["echotime"] {
		f.echoTime = 300 * time.Millisecond
	}
	if !set["seed"] {
		f.seed = uint64(time.Now().UnixNano())
	}
	if f.out == "" {
		f.out = newDir(filepath.Join("results", resultsName()+"-peers"))
	} else if entries, err := os.ReadDir(f.out); err == nil && len(entries) > 0 {
		return f, usageError{fmt.Sprintf("-out %s exists and is not empty: name a new directory", f.out)}
	}
	return f, nil
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
	if f.sweep.rates != nil {
		names = sweepable(names, stderr)
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
	writeConfig(raw)
	fmt.Fprintf(raw, "command: loopbench peers %s\nseed: %d\n", strings.Join(quoteArgs(f.args), " "), f.seed)
	for _, p := range ready {
		fmt.Fprintf(raw, "peer-%s: %s\n", p.Name, p.Version(ctx))
	}
	bench.WriteUnits(raw)
	fmt.Fprintln(raw, "Unit p50-ns better=lower\nUnit p99-ns better=lower")
	r := &peersRun{f: f, ready: ready, w: newResultWriter(raw), stderr: stderr}
	if !f.noEcho {
		r.findHTTPPeers(ctx)
		r.findFloor(ctx, raw)
		r.setupCost(ctx, raw)
	}
	var runErr error
	if f.sweep.rates != nil {
		runErr = r.sweeps(ctx)
	} else {
		runErr = r.rounds(ctx)
	}
	r.tls.remove()
	if err := raw.Close(); err != nil {
		return err
	}
	fmt.Fprintf(stderr, "results: %s\n", f.out)
	if r.measured == 0 {
		if runErr != nil {
			return runErr
		}
		return errors.New("nothing was measured")
	}
	if r.cost != nil {
		r.cost.printVerdict(stdout)
	}
	repErr := writeReport(stdout, stderr, []string{rawPath}, f.out, nil, "loopbench and its peers")
	if f.sweep.rates != nil {
		if err := writeSweepReport(stdout, stderr, []string{rawPath}, f.out, "p99"); err != nil && repErr == nil {
			repErr = err
		}
	}
	if runErr != nil {
		return runErr
	}
	if r.failures > 0 {
		return fmt.Errorf("%s failed (reported above); the report covers the rest", plural(r.failures, "peer run"))
	}
	return repErr
}

// asCLI, set to 1 in a child's environment, makes loopbench's test binary
// run the command line it is given, as loopbench would (see TestMain).
const asCLI = "LOOPBENCH_AS_CLI"

// peersRun is the state of a peers run.
type peersRun struct {
	f        peersFlags
	ready    []*peers.Peer
	w        *resultWriter
	stderr   io.Writer
	measured int
	failures int
	tls      peersTLS
	floor    *peers.Peer // the C floor client, nil where it cannot run
	// httpPeers are the ready peers whose HTTP server runs here (-proto
	// http).
	httpPeers []string
	cost      *serverCost // the server-side rows, nil where they cannot be measured
}

// peerCase measures one system on one workload, or one echo server, or
// the round's wake-up pair, and writes what it measured.
type peerCase func(context.Context) error

// rounds runs every case (peerCases) count times, each round in an order
// drawn from the seed (package rounds), writing each result as it comes.
func (r *peersRun) rounds(ctx context.Context) error {
	cfg := rounds.Config{Count: r.f.count, Seed: r.f.seed, Progress: func(s rounds.Step) {
		if s.Index == 0 {
			fmt.Fprintf(r.stderr, "round %d of %d\n", s.Round+1, r.f.count)
		}
	}}
	_, err := rounds.Run(ctx, cfg, r.peerCases(), func(ctx context.Context, _ rounds.Step, c peerCase) error { return c(ctx) })
	return peersInterrupted(err)
}

// peersInterrupted is err, or the error of an interrupted run.
func peersInterrupted(err error) error {
	var in *rounds.Interrupted
	if errors.As(err, &in) {
		return fmt.Errorf("%v: the report covers what was measured", in)
	}
	return err
}

// peerCases are a round's cases: each system on each shape it runs
// (loopbench on its default variant), and unless -no-echo each echo
// server at each connection count in each mode, and the wake-up pair.
func (r *peersRun) peerCases() []peerCase {
	cases := bench.Cases(bench.Options{Workloads: []string{"CallSoon", "Timers", "IOChain"}})
	var out []peerCase
	for _, s := range peers.Shapes(r.f.quick) {
		out = append(out, func(context.Context) error { return r.loopbench(cases, s) })
		for _, p := range r.ready {
			if s.Runs(p.Name) {
				out = append(out, func(ctx context.Context) error { return r.peer(ctx, p, s) })
			}
		}
	}
	if r.f.noEcho {
		return out
	}
	out = append(out, r.costCases()...)
	out = append(out, r.echoCases()...)
	return append(out, r.wakeups)
}

// peer measures peer p on shape s; a failure is reported and counted.
func (r *peersRun) peer(ctx context.Context, p *peers.Peer, s peers.Shape) error {
	res, err := p.Run(ctx, s, r.f.benchtime)
	if err != nil {
		if ctx.Err() != nil {
			return err
		}
		r.failures++
		fmt.Fprintf(r.stderr, "loopbench peers: %v\n", err)
		return nil
	}
	r.measured++
	return r.w.w.Write(res)
}

// loopbench measures loopbench's case of shape s on the default variant
// (with the shape's selector).
func (r *peersRun) loopbench(cases []bench.Case, s peers.Shape) error {
	variant := loopbench.Config{Selector: s.Selector}.String()
	if s.Selector != "" {
		if err := selectors.Available(s.Selector); err != nil {
			fmt.Fprintf(r.stderr, "loopbench peers: not measured: loopbench %s/%s/%s: %v\n", s.Bench, variant, s.Params, err)
			return nil
		}
	}
	for _, c := range cases {
		if c.Workload == s.Bench && c.Variant == variant && c.Params == s.Params {
			res, err := measureCase(c, r.f.benchtime)
			if bench.Skippable(err) {
				fmt.Fprintf(r.stderr, "loopbench peers: skipped loopbench %s/%s: %v\n", c.Workload, c.Name(), err)
				return nil
			}
			if err != nil {
				return fmt.Errorf("%s/%s: %w", c.Workload, c.Name(), err)
			}
			if err := r.w.writeCase(c, res); err != nil {
				return err
			}
			r.measured++
			return nil
		}
	}
	return fmt.Errorf("loopbench has no case %s/%s/%s", s.Bench, variant, s.Params)
}

// echoCases measure each server once per connection count and mode: the
// server in its own process pinned to the first CPU, loopbench load in
// this process pinned to the second. A failure is reported and counted.
func (r *peersRun) echoCases() []peerCase {
	servers := []echoServer{{name: "loopbench"}, {name: "gonet"}}
	for _, p := range r.ready {
		if slices.Contains(peers.EchoServers, p.Name) {
			servers = append(servers, echoServer{name: p.Name})
		}
	}
	if r.f.proto == httpProto {
		servers = r.httpServers()
	}
	conns := []int{1, 10}
	if r.f.quick {
		conns = []int{1}
	}
	var out []peerCase
	for _, mode := range r.echoModes() {
		for _, s := range servers {
			if !mode.serves(s.name) {
				continue
			}
			for _, k := range conns {
				out = append(out, func(ctx context.Context) error {
					if err := r.echo(ctx, s, k, mode); err != nil {
						r.failures++
						fmt.Fprintf(r.stderr, "loopbench peers: %s %s %s: %v\n", mode.bench, s.label(), mode.params, err)
						return nil
					}
					r.measured++
					return nil
				})
			}
		}
	}
	return out
}

// echo measures one server at conns connections in mode and writes its
// line.
func (r *peersRun) echo(ctx context.Context, s echoServer, conns int, mode echoMode) error {
	extra, err := r.tls.serveArgs(r.f.serveArgs(), mode)
	if err != nil {
		return err
	}
	addr, stop, err := startServer(s, extra, r.stderr)
	if err != nil {
		return err
	}
	defer stop()
	if err := r.measureEcho(ctx, s, addr, conns, mode); err != nil {
		return err
	}
	return r.floorEcho(ctx, s.name, addr, conns, mode)
}
