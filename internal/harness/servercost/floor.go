package servercost

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/loopbench/loopbench"
	"github.com/loopbench/loopbench/bench"
	"github.com/loopbench/loopbench/internal/harness/serve"
	"github.com/loopbench/loopbench/internal/measure/benchdata"
	"github.com/loopbench/loopbench/peers"
	"golang.org/x/perf/benchfmt"
)

// findFloor builds the C floor client (peers.Floor) and records its
// version in Raw; where it cannot run, one line says why and the run
// goes on without it.
func (r *run) findFloor(ctx context.Context) {
	ready, skipped := peers.Find(ctx, []string{peers.Floor}, peers.CacheDir())
	for _, s := range skipped {
		fmt.Fprintf(r.Stderr, "loopbench peers: skipped %s\n", s)
	}
	if len(ready) == 0 {
		return
	}
	r.floor = ready[0]
	fmt.Fprintf(r.Raw, "peer-%s: %s\nfloor-slack: %v\nUnit cpu-ns/req better=lower\nUnit lag-p99-ns better=lower\n", r.floor.Name, r.floor.Version(ctx), peers.DefaultSlack)
}

// floorEcho drives the echo server at addr with the floor client in the
// shape load just drove it (closed loop, 1 KiB, conns connections, as
// long) and writes its line as EchoFloor/<server>/size=1024/conns=N with
// the units EchoServer's line has (req/s, p50-ns, p99-ns) and cpu-ns/req
// and lag-p99-ns: beside the server's line, the least a generator costs in
// the same run. A load with errors or unanswered requests is a failure.
// Plain-text echo round trips only (not TLS, not HTTP). A failure is
// reported and counted; the server's own line stands.
func (r *run) floorEcho(ctx context.Context, name, addr string, conns int, mode echoMode) error {
	if r.floor == nil || mode.tls || mode.http {
		return nil
	}
	res, err := r.floor.EchoClient(ctx, peers.FloorLoad{Addr: addr, Size: 1024, Conns: conns, Duration: r.EchoTime})
	if err != nil {
		r.fail("echo %s %s: %v", name, mode.params, err)
		return nil
	}
	n, bad := origValue(res, "answered"), origValue(res, "errors")
	if n == 0 || bad > 0 || n != origValue(res, "requests") {
		r.fail("echo %s %s: floor client: %v requests, %v answered, %v errors", name, mode.params, origValue(res, "requests"), n, bad)
		return nil
	}
	r.measured++
	return r.write(fmt.Sprintf("EchoFloor/%s/%s/conns=%d", serve.Variant(name), mode.params, conns), res.Iters, origValues(res, "ns/op", "req/s", "p50-ns", "p99-ns", "cpu-ns/req", "lag-p99-ns"))
}

// origValue is res's value in unit as the program printed it, 0 if
// none.
func origValue(res *benchfmt.Result, unit string) float64 {
	v, _ := benchdata.WrittenValue(res, unit)
	return v
}

// origValues are res's values in units (origValue), in that order.
func origValues(res *benchfmt.Result, units ...string) []benchfmt.Value {
	vals := make([]benchfmt.Value, len(units))
	for i, u := range units {
		vals[i] = benchfmt.Value{Value: origValue(res, u), Unit: u}
	}
	return vals
}

// wakeups measures, once a round, how late a 200 µs timer fires on
// loopbench's default variant (bench's Wakeup case), how late the floor's
// clock_nanosleep wakes and how late its busy wait ends: the machine's
// floors for a generator that sleeps and for one that spins, in the same
// run.
func (r *run) wakeups(ctx context.Context) error {
	if r.floor == nil {
		return nil
	}
	variant := loopbench.Config{}.String()
	for _, c := range bench.Cases(bench.Options{Workloads: []string{"Wakeup"}}) {
		if c.Variant != variant {
			continue
		}
		res, err := r.Cmd.MeasureCase(c, r.Benchtime)
		if err != nil {
			return fmt.Errorf("%s/%s: %w", c.Workload, c.Name(), err)
		}
		if err := r.Cmd.WriteCase(c, res); err != nil {
			return err
		}
		r.measured++
	}
	count := int(max(r.Benchtime/(200*time.Microsecond), 1))
	for _, wait := range []func(context.Context, time.Duration, int) (*benchfmt.Result, error){r.floor.Sleep, r.floor.Spin} {
		res, err := wait(ctx, 200*time.Microsecond, count)
		if err != nil {
			r.fail("%v", err)
			continue
		}
		r.measured++
		if err := r.Out.Write(res); err != nil {
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
func (r *run) floorSweep(ctx context.Context, s serve.Server, addr string, steps int) {
	if r.floor == nil {
		return
	}
	sw := r.Sweep
	for _, rate := range sw.Rates[:min(steps, len(sw.Rates))] {
		if ctx.Err() != nil {
			return
		}
		res, err := r.floor.EchoClient(ctx, peers.FloorLoad{Addr: addr, Size: 1024, Conns: sw.Conns, Rate: rate, Duration: sw.StepTime})
		if err != nil {
			r.fail("sweep %s: floor client: %v", s.Label(), err)
			return
		}
		name := fmt.Sprintf("LoadFloor/label=%s/size=1024/conns=%d/rate=%s", s.Label(), sw.Conns, strconv.FormatFloat(rate, 'f', -1, 64))
		if err := r.write(name, res.Iters, origValues(res, "req/s", "p99-ns", "lag-p99-ns", "cpu-ns/req")); err != nil {
			fmt.Fprintf(r.Stderr, "loopbench peers: %v\n", err)
			return
		}
		fmt.Fprintf(r.Stderr, "%s: floor client at %.0f req/s: %.0f achieved, p99 %v, pacing lag p99 %v\n", s.Label(), rate,
			origValue(res, "req/s"), time.Duration(origValue(res, "p99-ns")), time.Duration(origValue(res, "lag-p99-ns")))
	}
}
