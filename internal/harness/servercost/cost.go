package servercost

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strings"
	"time"

	"github.com/loopbench/loopbench/internal/harness/procstat"
	"github.com/loopbench/loopbench/internal/harness/serve"
	"github.com/loopbench/loopbench/peers"
	"golang.org/x/perf/benchfmt"
)

// The server-side rows: what each server costs the machine per answered
// request, at fixed open-loop rates every server meets. At a closed loop
// the servers (all but the slowest) meet the generator's ceiling, so
// req/s there compares generators; CPU per request at a rate all of them
// sustain compares servers.
//
// The echo load is the C floor client's (peers.Floor), pinned to the
// second CPU as loopbench's generator would be, the server to the first:
// it is the cheapest generator here (one thread, epoll, no runtime), so
// its own costs and its lateness disturb the server least, and its
// schedule is fixed in advance (rate × duration requests, however late).
// Where it cannot run there are no server-side rows, and one line says
// so.

// costUnits are the units of the server-side rows the verdict pairs,
// all better lower.
var costUnits = []string{"server-cpu-ns/req", "server-cs/req", "server-syscalls/req", "server-runtime-syscalls/req"}

// flatOut is the share of one CPU, over a rate's window, from which a
// server ran flat out: pinned to one CPU, it had no time left to wait
// in, so it kept up by batching and queueing (its p50-ns shows how
// much), and its CPU per request there is what it could do, not what
// the rate cost it.
const flatOut = 0.95

// cost is the server-side measurement of a run.
type cost struct {
	drive   driver           // the load: the floor client's, or load -proto http's
	load    string           // names it in raw.txt
	rates   []float64        // the fixed rates, from the ceiling (Rates)
	proc    procstat.Proc    // reads the servers' /proc files
	perf    *procstat.Perf   // counts system calls with Syscalls; nil: not counted
	samples []costSample     // what was measured, for the verdict
	labels  []string         // servers in the order first measured
	window  time.Duration    // each load's time
	warm    time.Duration    // the unmeasured load before a server's first rate
	flat    map[flatKey]bool // the servers that ran flat out, at a rate
	now     func() time.Time // the clock of a window's wall time; nil: time.Now
}

// flatKey is a server at a rate.
type flatKey struct {
	label string
	rate  float64
}

// costSample is one server-side figure.
type costSample struct {
	label, unit string
	rate        float64
	value       float64
}

// setupCost prepares the server-side rows: it measures the load's
// closed-loop ceiling against loopbench's protocol-style server, chooses
// the rates, finds perf with Syscalls, and writes the choice to Raw.
// Where the rows cannot be measured one line says why, and the run goes
// on without them.
func (r *run) setupCost(ctx context.Context) {
	const prefix = "loopbench peers: no server-side rows (server CPU and context switches per request)"
	switch {
	case !procstat.Supported:
		fmt.Fprintf(r.Stderr, "%s: %v\n", prefix, procstat.ErrUnsupported)
		return
	case r.floor == nil && r.Proto != HTTP:
		fmt.Fprintf(r.Stderr, "%s: they are driven by the C floor client, which cannot run here\n", prefix)
		return
	}
	c := &cost{drive: r.floorDriver, load: "cfloor", window: r.EchoTime, warm: max(r.EchoTime/4, time.Millisecond)}
	if r.Proto == HTTP {
		c.drive, c.load = httpDriver, "loopbench load -proto http"
	}
	ceiling, err := r.ceiling(ctx, c)
	if err == nil {
		c.rates, err = Rates(ceiling)
	}
	if err != nil {
		fmt.Fprintf(r.Stderr, "%s: %v\n", prefix, err)
		return
	}
	if r.Syscalls {
		if c.perf, err = procstat.FindPerf(ctx, exec.LookPath); err != nil {
			fmt.Fprintf(r.Stderr, "loopbench peers: -syscalls: %v\n", err)
		}
	}
	r.cost = c
	rates := make([]string, len(c.rates))
	for i, rate := range c.rates {
		rates[i] = RateString(rate)
	}
	fmt.Fprintf(r.Raw, "server-cost-ceiling: %.0f req/s\nserver-cost-rates: %s req/s\nserver-cost-load: %s, %d connections, %d B, %v a rate\n", ceiling, strings.Join(rates, ","), c.load, costConns, costSize, c.window)
	for _, u := range append(costUnits, "server-cores") {
		fmt.Fprintf(r.Raw, "Unit %s better=lower\n", u)
	}
	fmt.Fprintf(r.Stderr, "server cost: %s's closed-loop ceiling is %.0f req/s (%d connections, %d B, against loopbench's protocol-style server); each server is measured at a quarter and a half of it, rounded down: %s req/s\n",
		c.load, ceiling, costConns, costSize, joinRates(c.rates))
}

// ceiling is c's load's closed-loop req/s over costConns connections
// against loopbench's protocol-style server, in its own process, for
// c's window.
func (r *run) ceiling(ctx context.Context, c *cost) (float64, error) {
	p, err := r.Launcher.Start(serve.Server{Name: "loopbench"}, r.serveArgs())
	if err != nil {
		return 0, err
	}
	defer p.Stop()
	res, err := c.drive(ctx, p.Addr, 0, c.window, nil)
	if err != nil {
		return 0, err
	}
	if res.errors > 0 {
		return 0, fmt.Errorf("%s's closed loop had %.0f errors", c.load, res.errors)
	}
	return res.reqs, nil
}

// costServers are the servers of the server-side rows: loopbench's three
// echo styles on its default variant, gonet, and the ready peers that
// have an echo server; with HTTP, the HTTP servers.
func (r *run) costServers() []serve.Server {
	if r.Proto == HTTP {
		return r.httpServers()
	}
	servers := loopServers()
	for _, p := range r.Ready {
		if slices.Contains(peers.EchoServers, p.Name) {
			servers = append(servers, serve.Server{Name: p.Name})
		}
	}
	return servers
}

// costCases are a round's server-side cases: one per server, each in its
// own process, at every rate.
func (r *run) costCases() []peerCase {
	if r.cost == nil {
		return nil
	}
	var out []peerCase
	for _, s := range r.costServers() {
		out = append(out, func(ctx context.Context) error {
			p, err := r.Launcher.Start(s, r.serveArgs())
			if err != nil {
				r.fail("server cost %s: %v", s.Label(), err)
				return nil
			}
			defer p.Stop()
			r.costOn(ctx, s, p.Addr, p.PID)
			return nil
		})
	}
	return out
}

// costOn measures server s, listening at addr in the serve process
// servePID, at every rate, after an unmeasured load at the first.
func (r *run) costOn(ctx context.Context, s serve.Server, addr string, servePID int) {
	c := r.cost
	if c == nil {
		return
	}
	pid, err := c.serverPID(s, servePID)
	if err == nil {
		_, err = c.drive(ctx, addr, c.rates[0], c.warm, nil)
	}
	for _, rate := range c.rates {
		if err != nil || ctx.Err() != nil {
			break
		}
		if err = r.costAt(ctx, s, addr, pid, rate); err == nil && c.perf != nil {
			err = r.syscallsAt(ctx, s, addr, pid, rate)
		}
	}
	if err != nil && ctx.Err() == nil {
		r.fail("server cost %s: %v", s.Label(), err)
	}
}

// serverPID is the process that serves for s: serve itself for loopbench
// and gonet, its one child for a peer (serve runs the peer's program).
func (c *cost) serverPID(s serve.Server, servePID int) (int, error) {
	if s.Name == "loopbench" || s.Name == "gonet" {
		return servePID, nil
	}
	kids, err := c.proc.Children(servePID)
	if err != nil {
		return 0, err
	}
	if len(kids) != 1 {
		return 0, fmt.Errorf("serve runs %d processes, want the %s server alone", len(kids), s.Name)
	}
	return kids[0], nil
}

// costAt drives server s (process pid) at rate for the window, reading
// the process's usage before and after, and writes its ServerCost line:
// server-cpu-ns/req and server-cs/req over the answered requests,
// server-cores (its CPU time over the wall time between the readings),
// with the load's req/s, p50-ns and p99-ns beside. A rate not met is said
// in one line, without a figure. A server that ran flat out (flatOut) is
// said in one line too: its line is written, and the verdict leaves out
// its figures at that rate, from every round.
func (r *run) costAt(ctx context.Context, s serve.Server, addr string, pid int, rate float64) error {
	c := r.cost
	start := c.clock()
	before, err := c.proc.Read(pid)
	if err != nil {
		return err
	}
	res, err := c.drive(ctx, addr, rate, c.window, nil)
	if err != nil {
		return err
	}
	after, err := c.proc.Read(pid)
	if err != nil {
		return err
	}
	wall := c.clock().Sub(start)
	if miss := missed(rate, c.window, res.loadCounts); miss != nil {
		fmt.Fprintf(r.Stderr, "%s did not meet %s req/s (%v): no server-side figure at that rate\n", s.Label(), RateString(rate), miss)
		return nil
	}
	use := after.Sub(before)
	cpuNs, cs := use.PerRequest(int64(res.answered))
	cores := use.Cores(wall)
	if cores >= flatOut {
		c.markFlat(s.Label(), rate)
		fmt.Fprintf(r.Stderr, "%s ran flat out at %s req/s (%.2f of a CPU over the window, p50 %v): its figures there are what it could do, not what the rate cost it; the verdict leaves them out\n",
			s.Label(), RateString(rate), cores, time.Duration(res.p50).Round(time.Microsecond))
	}
	c.record(s.Label(), rate, map[string]float64{"server-cpu-ns/req": cpuNs, "server-cs/req": cs})
	r.measured++
	return r.write(Name("ServerCost", s, r.Proto, rate), int(res.answered), []benchfmt.Value{
		{Value: cpuNs, Unit: "server-cpu-ns/req"}, {Value: cs, Unit: "server-cs/req"}, {Value: cores, Unit: "server-cores"},
		{Value: res.reqs, Unit: "req/s"}, {Value: res.p50, Unit: "p50-ns"}, {Value: res.p99, Unit: "p99-ns"}})
}

// syscallsAt drives server s at rate again, under perf stat attached to
// its process, and writes its ServerSyscalls line: server-syscalls/req
// (all) and server-runtime-syscalls/req (futex and nanosleep). A window of
// its own: perf's counting costs the server on every call, which the
// CPU figures must not carry. When perf fails, one line says so and no
// more calls are counted.
func (r *run) syscallsAt(ctx context.Context, s serve.Server, addr string, pid int, rate float64) error {
	c := r.cost
	out, err := os.CreateTemp("", "loopbench-perf-")
	if err != nil {
		return err
	}
	out.Close()
	defer os.Remove(out.Name())
	res, err := c.drive(ctx, addr, rate, c.window, c.perf.Prefix(pid, out.Name()))
	var n procstat.Syscalls
	if err == nil {
		var b []byte
		if b, err = os.ReadFile(out.Name()); err == nil {
			n, err = procstat.ParsePerf(b)
		}
	}
	if err != nil {
		fmt.Fprintf(r.Stderr, "loopbench peers: -syscalls: perf failed on %s (%v): system calls are not counted from here on\n", s.Label(), err)
		c.perf = nil
		return nil
	}
	if miss := missed(rate, c.window, res.loadCounts); miss != nil {
		fmt.Fprintf(r.Stderr, "%s did not meet %s req/s under perf (%v): no system call figure at that rate\n", s.Label(), RateString(rate), miss)
		return nil
	}
	answered := res.answered
	total, rt := float64(n.Total)/answered, float64(n.Runtime())/answered
	c.record(s.Label(), rate, map[string]float64{"server-syscalls/req": total, "server-runtime-syscalls/req": rt})
	return r.write(Name("ServerSyscalls", s, r.Proto, rate), int(answered), []benchfmt.Value{
		{Value: total, Unit: "server-syscalls/req"}, {Value: rt, Unit: "server-runtime-syscalls/req"}, {Value: res.reqs, Unit: "req/s"}})
}

// Name names a server-side line: kind/<server>/size=1024/conns=50/
// rate=R, the server as Server.BenchName names it; an HTTP server's with
// proto=http before size=.
func Name(kind string, s serve.Server, proto string, rate float64) string {
	params := fmt.Sprintf("size=%d/conns=%d/rate=%s", costSize, costConns, RateString(rate))
	if proto == HTTP {
		params = "proto=http/" + params
	}
	return kind + "/" + s.BenchName() + "/" + params
}

// clock is c.now, or time.Now.
func (c *cost) clock() time.Time {
	if c.now != nil {
		return c.now()
	}
	return time.Now()
}

// markFlat notes that server label ran flat out at rate.
func (c *cost) markFlat(label string, rate float64) {
	if c.flat == nil {
		c.flat = map[flatKey]bool{}
	}
	c.flat[flatKey{label, rate}] = true
}

// record keeps a server's figures at rate for the verdict.
func (c *cost) record(label string, rate float64, vals map[string]float64) {
	if !slices.Contains(c.labels, label) {
		c.labels = append(c.labels, label)
	}
	for _, u := range costUnits {
		if v, ok := vals[u]; ok {
			c.samples = append(c.samples, costSample{label: label, unit: u, rate: rate, value: v})
		}
	}
}
