package servercost

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strconv"
	"time"

	"github.com/loopbench/loopbench/bench"
	"github.com/loopbench/loopbench/internal/harness/load"
	"github.com/loopbench/loopbench/internal/harness/serve"
	"github.com/loopbench/loopbench/internal/measure/tlscert"
	"github.com/loopbench/loopbench/peers"
	"golang.org/x/perf/benchfmt"
)

// echoMode is what a closed-loop server measurement does: plain-text
// round trips, round trips over TLS, TLS handshakes, or HTTP/1.1
// requests.
type echoMode struct {
	bench     string // the benchmark: EchoServer, HTTPServer
	params    string // the benchmark name's segments before conns=
	tls       bool
	handshake bool
	http      bool
}

// echoModes are the server measurements of a round: plain text, and with
// TLS, TLS round trips and handshakes; with HTTP, HTTP requests.
func (r *run) echoModes() []echoMode {
	if r.Proto == HTTP {
		return []echoMode{{bench: "HTTPServer", params: "size=1024", http: true}}
	}
	modes := []echoMode{{bench: "EchoServer", params: "size=1024"}}
	if r.TLS {
		modes = append(modes, echoMode{bench: "EchoServer", params: "style=tls/size=1024", tls: true}, echoMode{bench: "EchoServer", params: "style=tls/op=handshake", tls: true, handshake: true})
	}
	return modes
}

// serves reports whether the echo server name serves mode.
func (m echoMode) serves(name string) bool {
	return !m.tls || name == "loopbench" || name == "gonet" || slices.Contains(peers.TLSEchoServers, name)
}

// serveArgs are serve's arguments, after the server's own, for the
// servers of the run's protocol.
func (r *run) serveArgs() []string {
	if r.Proto == HTTP {
		return []string{"-proto", HTTP, "-size", strconv.Itoa(costSize)}
	}
	return nil
}

// echoCases measure each server once per connection count and mode: the
// server in its own process pinned to the first CPU, loopbench load in
// this process pinned to the second. A failure is reported and counted.
func (r *run) echoCases() []peerCase {
	servers := []serve.Server{{Name: "loopbench"}, {Name: "gonet"}}
	for _, p := range r.Ready {
		if slices.Contains(peers.EchoServers, p.Name) {
			servers = append(servers, serve.Server{Name: p.Name})
		}
	}
	if r.Proto == HTTP {
		servers = r.httpServers()
	}
	conns := []int{1, 10}
	if r.Quick {
		conns = []int{1}
	}
	var out []peerCase
	for _, mode := range r.echoModes() {
		for _, s := range servers {
			if !mode.serves(s.Name) {
				continue
			}
			for _, k := range conns {
				out = append(out, func(ctx context.Context) error {
					if err := r.echo(ctx, s, k, mode); err != nil {
						r.fail("%s %s %s: %v", mode.bench, s.Label(), mode.params, err)
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
// line, and the floor client's beside it.
func (r *run) echo(ctx context.Context, s serve.Server, conns int, mode echoMode) error {
	extra, err := r.tls.serveArgs(r.serveArgs(), mode)
	if err != nil {
		return err
	}
	p, err := r.Launcher.Start(s, extra)
	if err != nil {
		return err
	}
	defer p.Stop()
	if err := r.measureEcho(ctx, s, p.Addr, conns, mode); err != nil {
		return err
	}
	return r.floorEcho(ctx, s.Name, p.Addr, conns, mode)
}

// certFiles is the certificate the TLS echo servers of a run serve,
// written once: bench.EchoTLSConfigs', which the clients trust.
type certFiles struct {
	dir   string
	files tlscert.Files
}

// serveArgs adds to a serve command line what mode needs.
func (p *certFiles) serveArgs(args []string, mode echoMode) ([]string, error) {
	if !mode.tls {
		return args, nil
	}
	if p.dir == "" {
		scfg, _, err := bench.EchoTLSConfigs()
		if err != nil {
			return nil, err
		}
		if p.dir, err = os.MkdirTemp("", "loopbench-peers-tls-"); err != nil {
			return nil, err
		}
		if p.files, err = tlscert.WriteFiles(p.dir, "server", scfg.Certificates[0], nil); err != nil {
			return nil, err
		}
	}
	return append(args, "-tls", "-cert", p.files.Cert, "-key", p.files.Key), nil
}

// remove deletes the certificate files.
func (p *certFiles) remove() {
	if p.dir != "" {
		os.RemoveAll(p.dir)
	}
}

// handshakes makes full handshakes with addr from conns goroutines for
// the echo time and writes the line named bname.
func (r *run) handshakes(bname, addr string, conns int) error {
	_, ccfg, err := bench.EchoTLSConfigs()
	if err != nil {
		return err
	}
	start := time.Now()
	n, err := bench.HandshakesFor(r.EchoTime, conns, addr, ccfg)
	elapsed := time.Since(start)
	if err != nil {
		return fmt.Errorf("after %d handshakes: %w", n, err)
	}
	if n == 0 {
		return errors.New("no handshake completed")
	}
	rate := float64(n) / elapsed.Seconds()
	return r.write(bname, int(n), []benchfmt.Value{{Value: 1e9 / rate, Unit: "ns/op"}, {Value: rate, Unit: "handshakes/s"}})
}

// measureEcho measures the server s at addr in mode, with conns
// connections: round trips or HTTP requests (loopbench load's closed
// loop) or handshakes.
func (r *run) measureEcho(ctx context.Context, s serve.Server, addr string, conns int, mode echoMode) error {
	bname := fmt.Sprintf("%s/%s/%s/conns=%d", mode.bench, s.BenchName(), mode.params, conns)
	if mode.handshake {
		return r.handshakes(bname, addr, conns)
	}
	warm := 500 * time.Millisecond
	if r.Quick {
		warm = 100 * time.Millisecond
	}
	cfg := load.Config{Addr: addr, Conns: conns, Size: 1024, Duration: r.EchoTime, Warmup: warm, Timeout: 2 * time.Second}
	if mode.http {
		hc, err := httpLoad(addr, conns, 0, r.EchoTime)
		if err != nil {
			return err
		}
		cfg.HTTP = hc.HTTP
	}
	if mode.tls {
		_, ccfg, err := bench.EchoTLSConfigs()
		if err != nil {
			return err
		}
		cfg.TLS = ccfg
	}
	rep, err := load.Run(ctx, cfg)
	if err != nil {
		return err
	}
	if rep.Requests == 0 || rep.Errors > 0 {
		return fmt.Errorf("%d requests, %d errors%s", rep.Requests, rep.Errors, r.Cmd.FirstError(rep))
	}
	return r.write(bname, int(rep.Requests), []benchfmt.Value{
		{Value: 1e9 / rep.Achieved, Unit: "ns/op"}, {Value: rep.Achieved, Unit: "req/s"},
		{Value: float64(rep.Corrected.P50), Unit: "p50-ns"}, {Value: float64(rep.Corrected.P99), Unit: "p99-ns"},
		{Value: rep.Cores(), Unit: "generator-cores"}, {Value: float64(rep.CPUPerRequest()), Unit: "cpu-ns/req"}})
}
