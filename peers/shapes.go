package peers

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/loopbench/loopbench/internal/measure/benchdata"
	"golang.org/x/perf/benchfmt"
)

// Shape is one workload in one shape, as the peers and loopbench run it.
type Shape struct {
	Workload string   // the peer programs' name: cold-fire
	Args     []string // its arguments: 100000
	// Bench, Params and Selector name loopbench's benchmark of the same
	// shape: BenchmarkTimers/<default variant>/op=cold-fire/k=100000, on
	// the default variant with Selector, when set, as its selector.
	Bench, Params, Selector string
	Peers                   []string // the peers that run it
}

// callbackPeers run the callback workloads; libevent has no callback for
// the next iteration (event_active runs it in the current one).
var callbackPeers = []string{"asyncio", "uvloop", "libuv", "libev"}

// EchoServers are the peers with an echo server for loopbench load.
var EchoServers = []string{"asyncio", "uvloop", "libuv"}

// HTTPServers are the peers with an HTTP/1.1 keep-alive server for
// loopbench load -proto http: asyncio and uvloop with httptools (an
// asyncio.Protocol feeding httptools.HttpRequestParser, as vmbench's),
// and libuv's minimal responder in C.
var HTTPServers = []string{"asyncio", "uvloop", "libuv"}

// TLSEchoServers are the peers whose echo server serves TLS too.
var TLSEchoServers = []string{"asyncio", "uvloop"}

// Shapes returns the workloads of a peers run: callbacks (1000 in flight,
// and a chain of one with an idle fd watched), timers from cold (fire
// all, cancel all) at k = 10⁵ and 10⁶, and libevent's bench.c on epoll,
// poll and uring (loopbench's uring selector beside liburing) at p = 100,
// 1000, 9990 with 1 and 100 chains. quick makes every size tiny, for a
// smoke run.
func Shapes(quick bool) []Shape {
	ks, ps := []int{100_000, 1_000_000}, []int{100, 1000, 9990}
	if quick {
		ks, ps = []int{1000}, []int{100}
	}
	shapes := []Shape{
		{Workload: "callsoon-inflight", Args: []string{"1000"}, Bench: "CallSoon", Params: "mode=inflight/w=1000", Peers: callbackPeers},
		{Workload: "callsoon-chain", Bench: "CallSoon", Params: "mode=chain", Peers: callbackPeers},
	}
	for _, k := range ks {
		for _, op := range []string{"cold-fire", "cold-cancel"} {
			shapes = append(shapes, Shape{Workload: op, Args: []string{strconv.Itoa(k)}, Bench: "Timers", Params: fmt.Sprintf("op=%s/k=%d", op, k), Peers: loops})
		}
	}
	for _, sel := range []string{"epoll", "poll", "uring"} {
		peers := loops
		switch sel {
		case "poll":
			peers = []string{"asyncio", "libev", "libevent"} // libuv (and so uvloop) polls with epoll only
		case "uring":
			peers = []string{"liburing"}
		}
		for _, p := range ps {
			for _, a := range []int{1, 100} {
				shapes = append(shapes, Shape{Workload: "iochain", Args: []string{sel, strconv.Itoa(p), strconv.Itoa(a)},
					Bench: "IOChain", Params: fmt.Sprintf("p=%d/a=%d/mode=once", p, a), Selector: sel, Peers: peers})
			}
		}
	}
	return shapes
}

// Runs reports whether the peer runs the shape.
func (s Shape) Runs(peer string) bool { return slices.Contains(s.Peers, peer) }

// Run runs the shape once on the peer, each measurement taking at least
// target, and returns its benchmark result, read with benchfmt (the
// programs print full precision; the caller writes it with
// benchfmt.Writer).
func (p *Peer) Run(ctx context.Context, s Shape, target time.Duration) (*benchfmt.Result, error) {
	args := append([]string(nil), s.Args...)
	if specs[p.Name].python {
		args = append(args, "-t", strconv.FormatFloat(target.Seconds(), 'g', -1, 64))
	} else {
		args = append(args, strconv.FormatInt(max(target.Milliseconds(), 1), 10))
	}
	return p.output(ctx, p.Command(s.Workload, args...))
}

// output runs argv, the peer's command line, and returns its one
// benchmark result; a failure names the command and the first line of
// its stderr.
func (p *Peer) output(ctx context.Context, argv []string) (*benchfmt.Result, error) {
	return p.outputUnder(ctx, nil, argv)
}

// outputUnder is output with argv run under the command line under (its
// arguments before argv's).
func (p *Peer) outputUnder(ctx context.Context, under, argv []string) (*benchfmt.Result, error) {
	all := append(slices.Clone(under), argv...)
	cmd := exec.CommandContext(ctx, all[0], all[1:]...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("%s %s: %v: %s", p.Name, strings.Join(argv[len(p.argv):], " "), err, firstLine(stderr.String(), err))
	}
	return benchResult(out)
}

// benchResult returns the one benchmark result in out.
func benchResult(out []byte) (*benchfmt.Result, error) {
	s, err := benchdata.Read(bytes.NewReader(out), "peer", nil)
	switch {
	case len(s.Malformed) > 0:
		return nil, fmt.Errorf("unreadable output: %v", s.Malformed[0])
	case err != nil && !errors.Is(err, benchdata.ErrNoResults):
		return nil, err
	case len(s.Raw) != 1:
		return nil, fmt.Errorf("%d benchmark lines in the output, want 1: %q", len(s.Raw), out)
	}
	return s.Raw[0], nil
}
