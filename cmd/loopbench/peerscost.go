package main

import (
	"context"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/loopbench/loopbench/internal/harness/procstat"
	"github.com/loopbench/loopbench/peers"
	"golang.org/x/perf/benchfmt"
)

// The server-side rows of peers: what each echo server costs the machine
// per answered request, at fixed open-loop rates every server meets. At
// a closed loop the servers (all but the slowest) meet the generator's
// ceiling, so req/s there compares generators; CPU per request at a rate
// all of them sustain compares servers.
//
// The load is the C floor client's (peers.Floor), pinned to the second
// CPU as loopbench's generator would be, the server to the first: it is
// the cheapest generator here (one thread, epoll, no runtime), so its own
// costs and its lateness disturb the server least, and its schedule is
// fixed in advance (rate × duration requests, however late). Where it
// cannot run there are no server-side rows, and one line says so.
const (
	costConns = 50   // connections of every fixed-rate load
	costSize  = 1024 // bytes per request
)

// costUnits are the units of the server-side rows, all better lower.
var costUnits = []string{"server-cpu-ns/req", "server-cs/req", "server-syscalls/req", "server-runtime-syscalls/req"}

// serverCost is the server-side measurement of a peers run.
type serverCost struct {
	drive   costDriver     // the load: the floor client's, or load -proto http's
	load    string         // names it in raw.txt
	rates   []float64      // the fixed rates, from the ceiling (costRates)
	proc    procstat.Proc  // reads the servers' /proc files
	perf    *procstat.Perf // counts system calls with -syscalls; nil: not counted
	samples []costSample   // what was measured, for the verdict
	labels  []string       // servers in the order first measured
	window  time.Duration  // each load's time
	warm    time.Duration  // the unmeasured load before a server's first rate
}

// costSample is one server-side figure.
type costSample struct {
	label, unit string
	rate        float64
	value       float64
}

// costRates are the fixed rates chosen from the floor client's
// closed-loop ceiling: a quarter and a half of it, rounded down to two
// significant figures (70,123 req/s gives 17,000 and 35,000).
func costRates(ceiling float64) ([]float64, error) {
	if !(ceiling >= 8) {
		return nil, fmt.Errorf("the floor client's closed-loop ceiling, %.4g req/s, is too low to choose rates from", ceiling)
	}
	return []float64{roundDown2(ceiling / 4), roundDown2(ceiling / 2)}, nil
}

// roundDown2 rounds x (at least 1) down to two significant figures, and
// to a whole number.
func roundDown2(x float64) float64 {
	unit := math.Max(1, math.Pow(10, math.Floor(math.Log10(x))-1))
	return math.Max(1, math.Floor(x/unit)*unit)
}

// rateString prints a rate as the benchmark names and the lines give it.
func rateString(rate float64) string { return strconv.FormatFloat(rate, 'f', -1, 64) }

// setupCost prepares the server-side rows: it measures the floor
// client's closed-loop ceiling against loopbench's protocol-style server,
// chooses the rates, finds perf with -syscalls, and writes the choice to
// raw. Where the rows cannot be measured one line says why, and the run
// goes on without them.
func (r *peersRun) setupCost(ctx context.Context, raw io.Writer) {
	const prefix = "loopbench peers: no server-side rows (server CPU and context switches per request)"
	switch {
	case !procstat.Supported:
		fmt.Fprintf(r.stderr, "%s: %v\n", prefix, procstat.ErrUnsupported)
		return
	case r.floor == nil && r.f.proto != httpProto:
		fmt.Fprintf(r.stderr, "%s: they are driven by the C floor client, which cannot run here\n", prefix)
		return
	}
	c := &serverCost{drive: r.floorDriver, load: "cfloor", window: r.f.echoTime, warm: max(r.f.echoTime/4, time.Millisecond)}
	if r.f.proto == httpProto {
		c.drive, c.load = httpDriver, "loopbench load -proto http"
	}
	ceiling, err := r.ceiling(ctx, c)
	if err == nil {
		c.rates, err = costRates(ceiling)
	}
	if err != nil {
		fmt.Fprintf(r.stderr, "%s: %v\n", prefix, err)
		return
	}
	if r.f.syscalls {
		if c.perf, err = procstat.FindPerf(ctx, exec.LookPath); err != nil {
			fmt.Fprintf(r.stderr, "loopbench peers: -syscalls: %v\n", err)
		}
	}
	r.cost = c
	rates := make([]string, len(c.rates))
	for i, rate := range c.rates {
		rates[i] = rateString(rate)
	}
	fmt.Fprintf(raw, "server-cost-ceiling: %.0f req/s\nserver-cost-rates: %s req/s\nserver-cost-load: %s, %d connections, %d B, %v a rate\n", ceiling, strings.Join(rates, ","), c.load, costConns, costSize, c.window)
	for _, u := range costUnits {
		fmt.Fprintf(raw, "Unit %s better=lower\n", u)
	}
	fmt.Fprintf(r.stderr, "server cost: %s's closed-loop ceiling is %.0f req/s (%d connections, %d B, against loopbench's protocol-style server); each server is measured at a quarter and a half of it, rounded down: %s req/s\n",
		c.load, ceiling, costConns, costSize, joinRates(c.rates))
}

// ceiling is c's load's closed-loop req/s over costConns connections
// against loopbench's protocol-style server, in its own process, for
// c's window.
func (r *peersRun) ceiling(ctx context.Context, c *serverCost) (float64, error) {
	addr, _, stop, err := startServerProc(echoServer{name: "loopbench"}, r.f.serveArgs(), r.stderr)
	if err != nil {
		return 0, err
	}
	defer stop()
	res, err := c.drive(ctx, addr, 0, c.window, nil)
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
// have an echo server; with -proto http, the HTTP servers.
func (r *peersRun) costServers() []echoServer {
	if r.f.proto == httpProto {
		return r.httpServers()
	}
	servers := []echoServer{{name: "loopbench"}, {name: "loopbench", style: "task"}, {name: "loopbench", style: "stream"}, {name: "gonet"}}
	for _, p := range r.ready {
		if slices.Contains(peers.EchoServers, p.Name) {
			servers = append(servers, echoServer{name: p.Name})
		}
	}
	return servers
}

// costCases are a round's server-side cases: one per server, each in its
// own process, at every rate.
func (r *peersRun) costCases() []peerCase {
	if r.cost == nil {
		return nil
	}
	var out []peerCase
	for _, s := range r.costServers() {
		out = append(out, func(ctx context.Context) error {
			addr, pid, stop, err := startServerProc(s, r.f.serveArgs(), r.stderr)
			if err != nil {
				r.failures++
				fmt.Fprintf(r.stderr, "loopbench peers: server cost %s: %v\n", s.label(), err)
				return nil
			}
			defer stop()
			r.costOn(ctx, s, addr, pid)
			return nil
		})
	}
	return out
}

// costOn measures server s, listening at addr in the serve process
// servePID, at every rate, after an unmeasured load at the first.
func (r *peersRun) costOn(ctx context.Context, s echoServer, addr string, servePID int) {
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
		r.failures++
		fmt.Fprintf(r.stderr, "loopbench peers: server cost %s: %v\n", s.label(), err)
	}
}

// serverPID is the process that serves for s: serve itself for loopbench
// and gonet, its one child for a peer (serve runs the peer's program).
func (c *serverCost) serverPID(s echoServer, servePID int) (int, error) {
	if s.name == "loopbench" || s.name == "gonet" {
		return servePID, nil
	}
	kids, err := c.proc.Children(servePID)
	if err != nil {
		return 0, err
	}
	if len(kids) != 1 {
		return 0, fmt.Errorf("serve runs %d processes, want the %s server alone", len(kids), s.name)
	}
	return kids[0], nil
}

// costAt drives server s (process pid) at rate for the window, reading
// the process's usage before and after, and writes its ServerCost line:
// server-cpu-ns/req and server-cs/req over the answered requests, with
// the floor client's req/s, p50-ns and p99-ns beside. A rate not met is
// said in one line, without a figure.
func (r *peersRun) costAt(ctx context.Context, s echoServer, addr string, pid int, rate float64) error {
	c := r.cost
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
	answered := res.answered
	if why := missed(rate, c.window, res.loadCounts); why != "" {
		fmt.Fprintf(r.stderr, "%s did not meet %s req/s (%s): no server-side figure at that rate\n", s.label(), rateString(rate), why)
		return nil
	}
	cpuNs, cs := after.Sub(before).PerRequest(int64(answered))
	c.record(s.label(), rate, map[string]float64{"server-cpu-ns/req": cpuNs, "server-cs/req": cs})
	r.measured++
	return r.w.write(costName("ServerCost", s, r.f.proto, rate), int(answered), []benchfmt.Value{
		{Value: cpuNs, Unit: "server-cpu-ns/req"}, {Value: cs, Unit: "server-cs/req"},
		{Value: res.reqs, Unit: "req/s"}, {Value: res.p50, Unit: "p50-ns"}, {Value: res.p99, Unit: "p99-ns"}})
}

// syscallsAt drives server s at rate again, under perf stat attached to
// its process, and writes its ServerSyscalls line: server-syscalls/req
// (all) and server-runtime-syscalls/req (futex and nanosleep). A window of
// its own: perf's counting costs the server on every call, which the
// CPU figures must not carry. When perf fails, one line says so and no
// more calls are counted.
func (r *peersRun) syscallsAt(ctx context.Context, s echoServer, addr string, pid int, rate float64) error {
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
		fmt.Fprintf(r.stderr, "loopbench peers: -syscalls: perf failed on %s (%v): system calls are not counted from here on\n", s.label(), err)
		c.perf = nil
		return nil
	}
	answered := res.answered
	if why := missed(rate, c.window, res.loadCounts); why != "" {
		fmt.Fprintf(r.stderr, "%s did not meet %s req/s under perf (%s): no system call figure at that rate\n", s.label(), rateString(rate), why)
		return nil
	}
	total, rt := float64(n.Total)/answered, float64(n.Runtime())/answered
	c.record(s.label(), rate, map[string]float64{"server-syscalls/req": total, "server-runtime-syscalls/req": rt})
	return r.w.write(costName("ServerSyscalls", s, r.f.proto, rate), int(answered), []benchfmt.Value{
		{Value: total, Unit: "server-syscalls/req"}, {Value: rt, Unit: "server-runtime-syscalls/req"}, {Value: res.reqs, Unit: "req/s"}})
}

// costName names a server-side line: kind/<server>/size=1024/conns=50/
// rate=R, the server as serverName names it; an HTTP server's with
// proto=http before size=.
func costName(kind string, s echoServer, proto string, rate float64) string {
	params := fmt.Sprintf("size=%d/conns=%d/rate=%s", costSize, costConns, rateString(rate))
	if proto == httpProto {
		params = "proto=http/" + params
	}
	return kind + "/" + serverName(s) + "/" + params
}

// serverName names a server in benchmark names as EchoServer lines do,
// loopbench's non-default styles as style=task or style=stream after its
// variant.
func serverName(s echoServer) string {
	server := echoVariant(s.name)
	if s.name == "loopbench" && s.style != "" && s.style != "protocol" {
		server += "/style=" + s.style
	}
	return server
}

// loadCounts are a fixed-rate load's counts, as the floor client reports
// them.
type loadCounts struct{ answered, errors float64 }

// floorCounts reads a floor client line's counts.
func floorCounts(res *benchfmt.Result) loadCounts {
	return loadCounts{answered: origValue(res, "answered"), errors: origValue(res, "errors")}
}

// missed says why a load at rate for window did not meet its rate, ""
// when it did: no errors, and at least 99 % of the rate × window requests
// answered. The floor client's schedule is fixed in advance and it waits
// 2 s after the window for the last answers, so a server that falls
// behind by more than that misses; one behind by less answers them all,
// and its p99-ns, beside its figures, shows how late.
func missed(rate float64, window time.Duration, n loadCounts) string {
	intended := rate * window.Seconds()
	switch {
	case n.errors > 0:
		return fmt.Sprintf("%.0f errors", n.errors)
	case n.answered < 0.99*intended:
		return fmt.Sprintf("%.0f of %.0f requests answered", n.answered, intended)
	}
	return ""
}

// record keeps a server's figures at rate for the verdict.
func (c *serverCost) record(label string, rate float64, vals map[string]float64) {
	if !slices.Contains(c.labels, label) {
		c.labels = append(c.labels, label)
	}
	for _, u := range costUnits {
		if v, ok := vals[u]; ok {
			c.samples = append(c.samples, costSample{label: label, unit: u, rate: rate, value: v})
		}
	}
}
