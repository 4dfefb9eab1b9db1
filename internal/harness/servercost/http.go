package servercost

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"slices"
	"time"

	"github.com/loopbench/loopbench/internal/harness/httpwire"
	"github.com/loopbench/loopbench/internal/harness/load"
	"github.com/loopbench/loopbench/internal/harness/serve"
	"github.com/loopbench/loopbench/internal/measure/loadresult"
	"github.com/loopbench/loopbench/peers"
)

// The servers of a run speak loopbench's echo protocol, or with HTTP
// HTTP/1.1: keep-alive servers answering GET / with 200 and costSize
// bytes of body (serve -proto http's, and the peers' of
// peers.HTTPServers). The rows are the same, only the servers, their
// serve arguments and the load differ: an HTTP load is loopbench load
// -proto http's (package load), the C floor client speaking the echo
// protocol only.

// httpServers are the HTTP servers of a run: loopbench's protocol- and
// stream-style servers on the default variant, gonet (net/http), and the
// ready peers with an HTTP server that can run here.
func (r *run) httpServers() []serve.Server {
	servers := []serve.Server{{Name: "loopbench"}, {Name: "loopbench", Style: "stream"}, {Name: "gonet"}}
	for _, name := range r.httpPeers {
		servers = append(servers, serve.Server{Name: name})
	}
	return servers
}

// findHTTPPeers keeps, with HTTP, the ready peers whose HTTP server can
// run here, and says of each other one with an HTTP server what it
// lacks, in one line.
func (r *run) findHTTPPeers(ctx context.Context) {
	if r.Proto != HTTP {
		return
	}
	for _, p := range r.Ready {
		if !slices.Contains(peers.HTTPServers, p.Name) {
			continue
		}
		if err := p.ServesHTTP(ctx); err != nil {
			fmt.Fprintf(r.Stderr, "loopbench peers: skipped %s's HTTP server: %v\n", p.Name, err)
			continue
		}
		r.httpPeers = append(r.httpPeers, p.Name)
	}
}

// httpLoad is the configuration of loopbench load -proto http against
// addr: GET / with the Host addr, conns connections, for d, at rate (0:
// closed loop), with no warm-up.
func httpLoad(addr string, conns int, rate float64, d time.Duration) (load.Config, error) {
	req, err := httpwire.NewRequest("GET", addr, "/", nil, nil)
	if err != nil {
		return load.Config{}, err
	}
	return load.Config{Addr: addr, Conns: conns, Duration: d, Rate: rate, Timeout: 2 * time.Second, HTTP: &load.HTTP{Request: req}}, nil
}

// costLoad is what one load of the server-side rows measured.
type costLoad struct {
	loadCounts
	reqs, p50, p99 float64 // req/s, and the corrected latency's percentiles in ns
}

// driver drives the server at addr over costConns connections at rate
// (0: closed loop) for d, under the command line under (perf stat
// attached to the server) when it is set.
type driver func(ctx context.Context, addr string, rate float64, d time.Duration, under []string) (costLoad, error)

// floorDriver drives an echo server with the C floor client.
func (r *run) floorDriver(ctx context.Context, addr string, rate float64, d time.Duration, under []string) (costLoad, error) {
	res, err := r.floor.EchoClient(ctx, peers.FloorLoad{Addr: addr, Size: costSize, Conns: costConns, Rate: rate, Duration: d, Under: under})
	if err != nil {
		return costLoad{}, err
	}
	return costLoad{loadCounts: loadCounts{answered: origValue(res, "answered"), errors: origValue(res, "errors")},
		reqs: origValue(res, "req/s"), p50: origValue(res, "p50-ns"), p99: origValue(res, "p99-ns")}, nil
}

// httpDriver drives an HTTP server with loopbench load -proto http in
// this process. With no warm-up every request the load sends is one of
// its window's, so its Answered are all the requests the server answered
// it, and the server's usage over the load is over them.
func httpDriver(ctx context.Context, addr string, rate float64, d time.Duration, under []string) (costLoad, error) {
	cfg, err := httpLoad(addr, costConns, rate, d)
	if err != nil {
		return costLoad{}, err
	}
	rep, err := duringCommand(ctx, under, func() (loadresult.Result, error) { return load.Run(ctx, cfg) })
	if err != nil {
		return costLoad{}, err
	}
	return costLoad{loadCounts: loadCounts{answered: float64(rep.Answered), errors: float64(rep.Errors)},
		reqs: rep.Achieved, p50: float64(rep.Corrected.P50), p99: float64(rep.Corrected.P99)}, nil
}

// duringCommand runs run while the command line under runs (none: run
// alone): under's command is started with a shell that says it has
// begun, so that run starts once the command before it (perf stat) is
// counting, and ends when run is done, its standard input closed.
func duringCommand[T any](ctx context.Context, under []string, run func() (T, error)) (T, error) {
	var zero T
	if len(under) == 0 {
		return run()
	}
	argv := append(slices.Clone(under), "/bin/sh", "-c", "echo; exec cat >/dev/null")
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return zero, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return zero, err
	}
	if err := cmd.Start(); err != nil {
		return zero, err
	}
	if _, err := bufio.NewReader(stdout).ReadString('\n'); err != nil {
		stdin.Close()
		return zero, errors.Join(fmt.Errorf("%s did not start its command: %v", argv[0], err), cmd.Wait())
	}
	go io.Copy(io.Discard, stdout)
	v, err := run()
	stdin.Close()
	if werr := cmd.Wait(); werr != nil && err == nil {
		err = fmt.Errorf("%s: %v", argv[0], werr)
	}
	return v, err
}
