package main

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"time"

	"github.com/loopbench/loopbench"
	"github.com/loopbench/loopbench/bench"
	"github.com/loopbench/loopbench/peers"
	"golang.org/x/perf/benchfmt"
)

// findFloor builds the C floor client (peers.Floor) for the echo round
// and records its version in raw; where it cannot run, one line says why
// and the round goes on without it.
func (r *peersRun) findFloor(ctx context.Context, raw io.Writer) {
	ready, skipped := peers.Find(ctx, []string{peers.Floor}, peers.CacheDir())
	for _, s := range skipped {
		fmt.Fprintf(r.stderr, "loopbench peers: skipped %s\n", s)
	}
	if len(ready) == 0 {
		return
	}
	r.floor = ready[0]
	fmt.Fprintf(raw, "peer-%s: %s\nfloor-slack: %v\nUnit cpu-ns/req better=lower\nUnit lag-p99-ns better=lower\n", r.floor.Name, r.floor.Version(ctx), peers.DefaultSlack)
}

// echoVariant names the echo server name in a benchmark: loopbench's
// default variant, or impl=<name>.
func echoVariant(name string) string {
	if name == "loopbench" {
		return loopbench.Config{}.String()
	}
	return "impl=" + name
}

// floorEcho drives the echo server at addr with the floor client in the
// shape load just drove it (closed loop, 1 KiB, conns connections, as
// long) and writes its line as EchoFloor/<server>/size=1024/conns=N with
// the units EchoServer's line has (req/s, p50-ns, p99-ns) and cpu-ns/req
// and lag-p99-ns: beside the server's line, the least a generator costs in
// the same run. A load with errors or unanswered requests is a failure.
// Plain-text echo round trips only (not TLS, not HTTP). A
// failure is reported and counted; the server's own line stands.
func (r *peersRun) floorEcho(ctx context.Context, name, addr string, conns int, mode echoMode) error {
	if r.floor == nil || mode.tls || mode.http {
		return nil
	}
	res, err := r.floor.EchoClient(ctx, peers.FloorLoad{Addr: addr, Size: 1024, Conns: conns, Duration: r.f.echoTime})
	if err != nil {
		r.failures++
		fmt.Fprintf(r.stderr, "loopbench peers: echo %s %s: %v\n", name, mode.params, err)
		return nil
	}
	n, bad := origValue(res, "answered"), origValue(res, "errors")
	if n == 0 || bad > 0 || n != origValue(res, "requests") {
		r.failures++
		fmt.Fprintf(r.stderr, "loopbench peers: echo %s %s: floor client: %v requests, %v answered, %v errors\n", name, mode.params, origValue(res, "requests"), n, bad)
		return nil
	}
	r.measured++
	var vals []benchfmt.Value
	for _, u := range []string{"ns/op", "req/s", "p50-ns", "p99-ns", "cpu-ns/req", "lag-p99-ns"} {
		vals = append(vals, benchfmt.Value{Value: origValue(res, u), Unit: u})
	}
	return r.w.write(fmt.Sprintf("EchoFloor/%s/%s/conns=%d", echoVariant(name), mode.params, conns), res.Iters, vals)
}

// origValue is res's value in unit as the program printed it (0 if
// none): benchfmt keeps the original beside a value only when it tidied
// the unit (ns/op to sec/op).
func origValue(res *benchfmt.Result, unit string) float64 {
	for _, v := range res.Values {
		if v.OrigUnit == unit {
			return v.OrigValue
		}
		if v.OrigUnit == "" && v.Unit == unit {
			return v.Value
		}
	}
	return 0
}

// wakeups measures, once a round, how late a 200 µs timer fires on
// loopbench's default variant (bench's Wakeup case), how late the floor's
// clock_nanosleep wakes and how late its busy wait ends: the machine's
// floors for a generator that sleeps and for one that spins, in the same
// run.
func (r *peersRun) wakeups(ctx context.Context) error {
	if r.floor == nil {
		return nil
	}
	variant := loopbench.Config{}.String()
	for _, c := range bench.Cases(bench.Options{Workloads: []string{"Wakeup"}}) {
		if c.Variant != variant {
			continue
		}
		res, err := measureCase(c, r.f.benchtime)
		if err != nil {
			return fmt.Errorf("%s/%s: %w", c.Workload, c.Name(), err)
		}
		if err := r.w.writeCase(c, res); err != nil {
			return err
		}
		r.measured++
	}
	count := int(max(r.f.benchtime/(200*time.Microsecond), 1))
	for _, wait := range []func(context.Context, time.Duration, int) (*benchfmt.Result, error){r.floor.Sleep, r.floor.Spin} {
		res, err := wait(ctx, 200*time.Microsecond, count)
		if err != nil {
			r.failures++
			fmt.Fprintf(r.stderr, "loopbench peers: %v\n", err)
			continue
		}
		r.measured++
		if err := r.w.w.Write(res); err != nil {
			return err
		}
	}
	return nil
}

// floorSweep drives the echo server at addr, just swept, with the floor
// client open loop at the first steps rates of the sweep, with the
// sweep's connections and step time, and writes one line a step,
// LoadFloor/label=<server>/size=1024/conns=N/rate=R, with req/s, p99-ns,
// lag-p99-ns and cpu-ns/req: the least a generator is late and costs at
// each rate, in the same run. It stops at the first failed load.
func (r *peersRun) floorSweep(ctx context.Context, s echoServer, addr string, steps int) {
	if r.floor == nil {
		return
	}
	for _, rate := range r.f.sweep.rates[:min(steps, len(r.f.sweep.rates))] {
		if ctx.Err() != nil {
			return
		}
		res, err := r.floor.EchoClient(ctx, peers.FloorLoad{Addr: addr, Size: 1024, Conns: r.f.sweep.conns, Rate: rate, Duration: r.f.sweep.stepTime})
		if err != nil {
			r.failures++
			fmt.Fprintf(r.stderr, "loopbench peers: sweep %s: floor client: %v\n", s.label(), err)
			return
		}
		var vals []benchfmt.Value
		for _, u := range []string{"req/s", "p99-ns", "lag-p99-ns", "cpu-ns/req"} {
			vals = append(vals, benchfmt.Value{Value: origValue(res, u), Unit: u})
		}
		name := fmt.Sprintf("LoadFloor/label=%s/size=1024/conns=%d/rate=%s", s.label(), r.f.sweep.conns, strconv.FormatFloat(rate, 'f', -1, 64))
		if err := r.w.write(name, res.Iters, vals); err != nil {
			fmt.Fprintf(r.stderr, "loopbench peers: %v\n", err)
			return
		}
		fmt.Fprintf(r.stderr, "%s: floor client at %.0f req/s: %.0f achieved, p99 %v, pacing lag p99 %v\n", s.label(), rate,
			origValue(res, "req/s"), time.Duration(origValue(res, "p99-ns")), time.Duration(origValue(res, "lag-p99-ns")))
	}
}
