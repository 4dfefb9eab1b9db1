package peers

import (
	"context"
	"fmt"
	"net"
	"strconv"
	"time"

	"golang.org/x/perf/benchfmt"
)

// Floor is the C floor client, c/floor.c: the least a load generator can
// cost on this machine. One thread, one epoll set, non-blocking TCP
// connections, one write and one read per request, waits in epoll_pwait2
// with nanosecond timeouts; and a sleeper, clock_nanosleep with 1 ns timer
// slack, the least a paced send can be late by. It runs no loop workload,
// so it is not among Names; Find builds it like the other C peers (Linux
// only).
const Floor = "cfloor"

// FloorLoad is one load of the floor client, in load's shapes.
//
// The client's line, BenchmarkEchoClient/impl=cfloor/mode=closed|open/
// size=S/conns=C/slack=Nns (the timer slack in force while it ran, read
// back from the kernel), carries: answered requests as its count; req/s (answered
// per second of the load); requests (sent), answered, errors (failed
// connections' requests and answers missing 2 s after the load);
// cpu-ns/req (the process's user+system CPU per answered request);
// latency p50-ns, p90-ns, p99-ns, p99.9-ns and max-ns, from the intended
// send time (coordinated omission corrected); lag-p50-ns and lag-p99-ns,
// how late sends left against their intended times.
type FloorLoad struct {
	Addr     string        // the echo server, host:port
	Size     int           // bytes per request
	Conns    int           // connections
	Rate     float64       // req/s over all connections, open loop; 0: closed loop
	Duration time.Duration // time requests are sent for (whole ms)
	// Slack is the client thread's timer slack (prctl PR_SET_TIMERSLACK):
	// how late Linux may end its timed waits. 0 means 1 ns, what loopbench's
	// generator sets (cpu.LowerTimerSlack), so that the two pace alike;
	// Linux's default is 50 µs.
	Slack time.Duration
	// Under is a command line the client runs under, its argv following
	// (perf stat ... --, procstat.Perf.Prefix); none when empty.
	Under []string
}

// DefaultSlack is the floor client's timer slack unless FloorLoad says
// otherwise: loopbench's generator's.
const DefaultSlack = time.Nanosecond

// slack is l's timer slack in force.
func (l FloorLoad) slack() time.Duration {
	if l.Slack == 0 {
		return DefaultSlack
	}
	return l.Slack
}

// Args returns the floor client's command-line arguments for l.
func (l FloorLoad) Args() ([]string, error) {
	host, port, err := net.SplitHostPort(l.Addr)
	switch {
	case err != nil:
		return nil, fmt.Errorf("floor client: address %q: %v", l.Addr, err)
	case l.Size < 1 || l.Conns < 1 || l.Rate < 0 || l.Duration < time.Millisecond || l.Slack < 0:
		return nil, fmt.Errorf("floor client: size %d, conns %d, rate %g, duration %v, slack %v: want positive sizes, a rate >= 0, at least 1ms and a slack >= 0", l.Size, l.Conns, l.Rate, l.Duration, l.Slack)
	}
	return []string{"echo-client", host, port, strconv.Itoa(l.Size), strconv.Itoa(l.Conns),
		strconv.FormatFloat(l.Rate, 'g', -1, 64), strconv.FormatInt(l.Duration.Milliseconds(), 10),
		strconv.FormatInt(l.slack().Nanoseconds(), 10)}, nil
}

// EchoClient runs the floor client p (Find's Floor) on l and returns its
// benchmark line.
func (p *Peer) EchoClient(ctx context.Context, l FloorLoad) (*benchfmt.Result, error) {
	args, err := l.Args()
	if err != nil {
		return nil, err
	}
	return p.outputUnder(ctx, l.Under, p.Command(args[0], args[1:]...))
}

// Sleep runs the floor's sleeper: count clock_nanosleep calls of wait
// each with 1 ns timer slack. Its line, BenchmarkWakeup/impl=cfloor/
// wait=200us as bench's Wakeup cases, reports late-p50-ns, late-p90-ns,
// late-p99-ns and late-max-ns: how late the wake-ups came.
func (p *Peer) Sleep(ctx context.Context, wait time.Duration, count int) (*benchfmt.Result, error) {
	return p.waits(ctx, "sleep", "sleeper", wait, count)
}

// Spin runs the floor's spinner: count busy waits of wait, each reading
// the clock until its deadline has passed. Its line, BenchmarkWakeup/
// impl=cfloor-spin/wait=200us, reports the same lateness units as Sleep's:
// a spin is late only when the CPU was taken away at its deadline, so
// this is the least a generator spinning before its sends (load -spin)
// can be late on this machine.
func (p *Peer) Spin(ctx context.Context, wait time.Duration, count int) (*benchfmt.Result, error) {
	return p.waits(ctx, "spin", "spinner", wait, count)
}

// waits runs the floor's workload (sleep or spin, its role in errors):
// count waits of wait, one Wakeup line.
func (p *Peer) waits(ctx context.Context, workload, role string, wait time.Duration, count int) (*benchfmt.Result, error) {
	if wait <= 0 || count < 1 {
		return nil, fmt.Errorf("floor %s: wait %v, count %d: want both positive", role, wait, count)
	}
	return p.output(ctx, p.Command(workload, strconv.FormatInt(wait.Nanoseconds(), 10), strconv.Itoa(count)))
}
