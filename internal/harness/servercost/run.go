// Package servercost runs loopbench peers: loopbench's workloads beside
// its peers' (package peers) in interleaved rounds, and above all what
// each echo or HTTP server costs the machine per answered request.
//
// Every server runs in its own process (package serve's Launcher),
// pinned to the first CPU while the load runs here on the second. The
// server-side rows drive each server open loop at fixed rates every
// server meets, chosen from the load's closed-loop ceiling, and read the
// server's CPU time and context switches before and after each window
// (package procstat), and with perf its system calls in a window of its
// own. The load is the C floor client's (peers.Floor), or for HTTP
// loopbench load's. Beside them: closed-loop EchoServer and HTTPServer
// lines, the floor client's EchoFloor lines and wake-up floors, and with
// a Sweep, each server swept by load -sweep and then by the floor
// client.
//
// Results are written as benchfmt lines to Config.Out as they come;
// Outcome.WriteVerdict prints each server's figures against loopbench's
// protocol-style server, judged as compare judges (package verdict). A
// failed server is reported on Config.Stderr in one line and counted;
// the others go on. Server processes end with the case that started
// them, interrupted or not.
package servercost

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/loopbench/loopbench"
	"github.com/loopbench/loopbench/bench"
	"github.com/loopbench/loopbench/internal/harness/serve"
	"github.com/loopbench/loopbench/internal/measure/loadresult"
	"github.com/loopbench/loopbench/internal/measure/rounds"
	"github.com/loopbench/loopbench/peers"
	"github.com/loopbench/loopbench/selectors"
	"golang.org/x/perf/benchfmt"
)

// HTTP is Config.Proto's value for HTTP/1.1 servers; "echo" is the
// other.
const HTTP = "http"

// Config is a peers run.
type Config struct {
	Proto     string        // what the servers speak: echo, or HTTP
	Count     int           // rounds
	Benchtime time.Duration // a workload's measurement's least time
	EchoTime  time.Duration // each echo load's measured time
	Quick     bool          // tiny sizes: a smoke run
	NoEcho    bool          // no servers
	TLS       bool          // also the echo servers over TLS
	Syscalls  bool          // also count the servers' system calls (perf)
	Seed      uint64        // of the rounds' order
	Sweep     *Sweep        // nil: rounds; else each echo server swept once

	Ready    []*peers.Peer    // the peers found
	Launcher serve.Launcher   // starts the servers
	Raw      io.Writer        // raw.txt, for configuration lines
	Out      *benchfmt.Writer // raw.txt, for result lines
	Stderr   io.Writer        // progress and one line per failure
	Cmd      Cmd
}

// Cmd is what the command lends a run: its own measurement of
// loopbench's cases, and the form of a failed load.
type Cmd struct {
	MeasureCase func(bench.Case, time.Duration) (bench.Result, error)
	WriteCase   func(bench.Case, bench.Result) error
	FirstError  func(loadresult.Result) string // the load's most frequent error, ", ..." or ""
}

// Outcome is what a run did.
type Outcome struct {
	Measured int // results written
	Failures int // cases that failed and were reported
	cost     *cost
}

// run is the state of a peers run.
type run struct {
	Config
	measured, failures int
	tls                certFiles
	floor              *peers.Peer // the C floor client, nil where it cannot run
	httpPeers          []string    // the ready peers whose HTTP server runs here
	cost               *cost       // the server-side rows, nil where they cannot be measured
}

// Run runs the peers run cfg: the rounds, or with a Sweep the sweeps,
// after the peers' versions and the units on Raw.
// An interrupted run returns what it measured and an error saying so.
func Run(ctx context.Context, cfg Config) (Outcome, error) {
	r := &run{Config: cfg}
	r.writeHeader(ctx)
	if !cfg.NoEcho {
		r.findHTTPPeers(ctx)
		r.findFloor(ctx)
		r.setupCost(ctx)
	}
	var err error
	if cfg.Sweep != nil {
		err = r.sweeps(ctx)
	} else {
		err = r.rounds(ctx)
	}
	r.tls.remove()
	return Outcome{Measured: r.measured, Failures: r.failures, cost: r.cost}, interrupted(err)
}

// writeHeader writes to Raw each ready peer's version as a
// configuration line, and the units of the results.
func (r *run) writeHeader(ctx context.Context) {
	for _, p := range r.Ready {
		fmt.Fprintf(r.Raw, "peer-%s: %s\n", p.Name, p.Version(ctx))
	}
	bench.WriteUnits(r.Raw)
	fmt.Fprintln(r.Raw, "Unit p50-ns better=lower\nUnit p99-ns better=lower")
}

// peerCase measures one system on one workload, or one server, or the
// round's wake-up pair, and writes what it measured.
type peerCase func(context.Context) error

// rounds runs every case (peerCases) Count times, each round in an order
// drawn from the seed (package rounds), writing each result as it comes.
func (r *run) rounds(ctx context.Context) error {
	cfg := rounds.Config{Count: r.Count, Seed: r.Seed, Progress: func(s rounds.Step) {
		if s.Index == 0 {
			fmt.Fprintf(r.Stderr, "round %d of %d\n", s.Round+1, r.Count)
		}
	}}
	_, err := rounds.Run(ctx, cfg, r.peerCases(), func(ctx context.Context, _ rounds.Step, c peerCase) error { return c(ctx) })
	return err
}

// interrupted is err, or the error of an interrupted run.
func interrupted(err error) error {
	var in *rounds.Interrupted
	if errors.As(err, &in) {
		return fmt.Errorf("%v: the report covers what was measured", in)
	}
	return err
}

// peerCases are a round's cases: each system on each shape it runs
// (loopbench on its default variant), and unless NoEcho the server-side
// rows, each server at each connection count in each mode, and the
// wake-up pair.
func (r *run) peerCases() []peerCase {
	cases := bench.Cases(bench.Options{Workloads: []string{"CallSoon", "Timers", "IOChain"}})
	var out []peerCase
	for _, s := range peers.Shapes(r.Quick) {
		out = append(out, func(context.Context) error { return r.loopbench(cases, s) })
		for _, p := range r.Ready {
			if s.Runs(p.Name) {
				out = append(out, func(ctx context.Context) error { return r.peer(ctx, p, s) })
			}
		}
	}
	if r.NoEcho {
		return out
	}
	out = append(out, r.costCases()...)
	out = append(out, r.echoCases()...)
	return append(out, r.wakeups)
}

// peer measures peer p on shape s; a failure is reported and counted.
func (r *run) peer(ctx context.Context, p *peers.Peer, s peers.Shape) error {
	res, err := p.Run(ctx, s, r.Benchtime)
	if err != nil {
		if ctx.Err() != nil {
			return err
		}
		r.fail("%v", err)
		return nil
	}
	r.measured++
	return r.Out.Write(res)
}

// loopbench measures loopbench's case of shape s on the default variant
// (with the shape's selector).
func (r *run) loopbench(cases []bench.Case, s peers.Shape) error {
	variant := loopbench.Config{Selector: s.Selector}.String()
	if s.Selector != "" {
		if err := selectors.Available(s.Selector); err != nil {
			fmt.Fprintf(r.Stderr, "loopbench peers: not measured: loopbench %s/%s/%s: %v\n", s.Bench, variant, s.Params, err)
			return nil
		}
	}
	for _, c := range cases {
		if c.Workload == s.Bench && c.Variant == variant && c.Params == s.Params {
			res, err := r.Cmd.MeasureCase(c, r.Benchtime)
			if bench.Skippable(err) {
				fmt.Fprintf(r.Stderr, "loopbench peers: skipped loopbench %s/%s: %v\n", c.Workload, c.Name(), err)
				return nil
			}
			if err != nil {
				return fmt.Errorf("%s/%s: %w", c.Workload, c.Name(), err)
			}
			if err := r.Cmd.WriteCase(c, res); err != nil {
				return err
			}
			r.measured++
			return nil
		}
	}
	return fmt.Errorf("loopbench has no case %s/%s/%s", s.Bench, variant, s.Params)
}

// fail counts a failure and reports it in one line.
func (r *run) fail(format string, args ...any) {
	r.failures++
	fmt.Fprintf(r.Stderr, "loopbench peers: "+format+"\n", args...)
}

// write writes one result line.
func (r *run) write(name string, iters int, vals []benchfmt.Value) error {
	return r.Out.Write(&benchfmt.Result{Name: benchfmt.Name(name), Iters: iters, Values: vals})
}
