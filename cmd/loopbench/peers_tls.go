package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"time"

	"github.com/loopbench/loopbench/bench"
	"github.com/loopbench/loopbench/internal/harness/load"
	"github.com/loopbench/loopbench/internal/harness/tlscert"
	"github.com/loopbench/loopbench/peers"
	"golang.org/x/perf/benchfmt"
)

// echoMode is what a server measurement of peers does: plain-text round
// trips, round trips over TLS, TLS handshakes, or HTTP/1.1 requests.
type echoMode struct {
	bench     string // the benchmark: EchoServer, HTTPServer
	params    string // the benchmark name's segments before conns=
	tls       bool
	handshake bool
	http      bool
}

// echoModes are the server measurements of a round: plain text, and with
// -tls, TLS round trips and handshakes; with -proto http, HTTP requests.
func (r *peersRun) echoModes() []echoMode {
	if r.f.proto == httpProto {
		return []echoMode{{bench: "HTTPServer", params: "size=1024", http: true}}
	}
	modes := []echoMode{{bench: "EchoServer", params: "size=1024"}}
	if r.f.tls {
		modes = append(modes, echoMode{bench: "EchoServer", params: "style=tls/size=1024", tls: true}, echoMode{bench: "EchoServer", params: "style=tls/op=handshake", tls: true, handshake: true})
	}
	return modes
}

// serves reports whether the echo server name serves mode.
func (m echoMode) serves(name string) bool {
	return !m.tls || name == "loopbench" || name == "gonet" || slices.Contains(peers.TLSEchoServers, name)
}

// peersTLS is the certificate the TLS echo servers of a peers run serve,
// written once: bench.EchoTLSConfigs', which the clients trust.
type peersTLS struct {
	dir   string
	files tlscert.Files
}

// serveArgs adds to a serve command line what mode needs.
func (p *peersTLS) serveArgs(args []string, mode echoMode) ([]string, error) {
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
func (p *peersTLS) remove() {
	if p.dir != "" {
		os.RemoveAll(p.dir)
	}
}

// handshakes makes full handshakes with addr from conns goroutines for
// the echo time and writes the line named bname.
func (r *peersRun) handshakes(bname, addr string, conns int) error {
	_, ccfg, err := bench.EchoTLSConfigs()
	if err != nil {
		return err
	}
	start := time.Now()
	n, err := bench.HandshakesFor(r.f.echoTime, conns, addr, ccfg)
	elapsed := time.Since(start)
	if err != nil {
		return fmt.Errorf("after %d handshakes: %w", n, err)
	}
	if n == 0 {
		return errors.New("no handshake completed")
	}
	rate := float64(n) / elapsed.Seconds()
	return r.w.write(bname, int(n), []benchfmt.Value{{Value: 1e9 / rate, Unit: "ns/op"}, {Value: rate, Unit: "handshakes/s"}})
}

// measureEcho measures the server s at addr in mode, with conns
// connections: round trips or HTTP requests (loopbench load's closed
// loop) or handshakes.
func (r *peersRun) measureEcho(ctx context.Context, s echoServer, addr string, conns int, mode echoMode) error {
	bname := fmt.Sprintf("%s/%s/%s/conns=%d", mode.bench, serverName(s), mode.params, conns)
	if mode.handshake {
		return r.handshakes(bname, addr, conns)
	}
	warm := 500 * time.Millisecond
	if r.f.quick {
		warm = 100 * time.Millisecond
	}
	cfg := load.Config{Addr: addr, Conns: conns, Size: 1024, Duration: r.f.echoTime, Warmup: warm, Timeout: 2 * time.Second}
	if mode.http {
		hc, err := httpLoad(addr, conns, 0, r.f.echoTime)
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
		return fmt.Errorf("%d requests, %d errors%s", rep.Requests, rep.Errors, firstError(rep))
	}
	return r.w.write(bname, int(rep.Requests), []benchfmt.Value{
		{Value: 1e9 / rep.Achieved, Unit: "ns/op"}, {Value: rep.Achieved, Unit: "req/s"},
		{Value: float64(rep.Corrected.P50), Unit: "p50-ns"}, {Value: float64(rep.Corrected.P99), Unit: "p99-ns"},
		{Value: rep.Cores(), Unit: "generator-cores"}, {Value: float64(rep.CPUPerRequest()), Unit: "cpu-ns/req"}})
}
