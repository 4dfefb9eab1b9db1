package main

import (
	"bufio"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/loopbench/loopbench"
	"github.com/loopbench/loopbench/bench"
	"github.com/loopbench/loopbench/internal/cpu"
	"github.com/loopbench/loopbench/internal/load"
	"github.com/loopbench/loopbench/internal/tlscert"
	"github.com/loopbench/loopbench/peers"
	"golang.org/x/perf/benchfmt"
)

// echoMode is what an echo measurement of peers does: plain-text round
// trips, round trips over TLS, or TLS handshakes.
type echoMode struct {
	params    string // the benchmark name's segments before conns=
	tls       bool
	handshake bool
}

var (
	plainEcho   = echoMode{params: "size=1024"}
	tlsEcho     = echoMode{params: "style=tls/size=1024", tls: true}
	tlsShake    = echoMode{params: "style=tls/op=handshake", tls: true, handshake: true}
	errStopped  = errors.New("interrupted: the report covers what was measured")
	echoServers = []string{"loopbench", "gonet"}
)

// echoRound measures each echo server once per connection count (and,
// with -tls, over TLS and in handshakes): the server in its own process
// pinned to the first CPU, the client in this process pinned to the
// second.
func (r *peersRun) echoRound(ctx context.Context) error {
	modes := []echoMode{plainEcho}
	if r.f.tls {
		modes = append(modes, tlsEcho, tlsShake)
	}
	conns := []int{1, 10}
	if r.f.quick {
		conns = []int{1}
	}
	for _, mode := range modes {
		servers := slices.Clone(echoServers)
		for _, p := range r.ready {
			if slices.Contains(peers.EchoServers, p.Name) && (!mode.tls || slices.Contains(peers.TLSEchoServers, p.Name)) {
				servers = append(servers, p.Name)
			}
		}
		r.rng.Shuffle(len(servers), func(i, j int) { servers[i], servers[j] = servers[j], servers[i] })
		for _, name := range servers {
			for _, k := range conns {
				if ctx.Err() != nil {
					return errStopped
				}
				if err := r.echo(ctx, name, k, mode); err != nil {
					r.failures++
					fmt.Fprintf(r.stderr, "loopbench peers: echo %s %s: %v\n", name, mode.params, err)
					continue
				}
				r.measured++
			}
		}
	}
	return nil
}

// echo measures one echo server at conns connections in mode and writes
// its line.
func (r *peersRun) echo(ctx context.Context, name string, conns int, mode echoMode) error {
	all, err := cpu.Allowed() // none where pinning is unsupported: server and client unpinned
	if err != nil && !errors.Is(err, cpu.ErrUnsupported) {
		return err
	}
	addr, stop, err := r.startServer(name, mode, all)
	if err != nil {
		return err
	}
	defer stop()
	if len(all) >= 2 {
		if err := cpu.Pin(all[1:2]); err != nil {
			return err
		}
		defer cpu.Pin(all)
	}
	variant := "impl=" + name
	if name == "loopbench" {
		variant = loopbench.Config{}.String()
	}
	bname := fmt.Sprintf("EchoServer/%s/%s/conns=%d", variant, mode.params, conns)
	if mode.handshake {
		return r.measureHandshakes(bname, addr, conns)
	}
	return r.measureEcho(ctx, bname, addr, conns, mode)
}

// startServer runs `loopbench serve` for the server name in mode, pinned
// to the first of all, and returns its address and how to stop it.
func (r *peersRun) startServer(name string, mode echoMode, all []int) (addr string, stop func(), err error) {
	self, err := os.Executable()
	if err != nil {
		return "", nil, err
	}
	args := []string{"serve", "-addr", "127.0.0.1:0"}
	if name != "loopbench" {
		args = append(args, "-impl", name)
	}
	if len(all) >= 2 {
		args = append(args, "-cpu", fmt.Sprint(all[0]))
	}
	if mode.tls {
		files, err := r.tlsFiles()
		if err != nil {
			return "", nil, err
		}
		args = append(args, "-tls", "-cert", files.Cert, "-key", files.Key)
	}
	srv := exec.Command(self, args...)
	srv.Env = append(os.Environ(), asCLI+"=1")
	out, err := srv.StdoutPipe()
	if err != nil {
		return "", nil, err
	}
	srv.Stderr = r.stderr
	if err := srv.Start(); err != nil {
		return "", nil, err
	}
	stop = func() {
		srv.Process.Signal(syscall.SIGTERM)
		done := make(chan struct{})
		go func() { srv.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			srv.Process.Kill()
			<-done
		}
	}
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil || !strings.HasPrefix(line, "listening on ") {
		stop()
		return "", nil, fmt.Errorf("the server did not start: %q %v", line, err)
	}
	go io.Copy(io.Discard, out)
	return strings.Fields(line)[2], stop, nil
}

// tlsFiles writes, once per run, the TLS echo workloads' certificate and
// key (bench.EchoTLSConfigs') for the servers, into the results directory.
func (r *peersRun) tlsFiles() (tlscert.Files, error) {
	if r.certs.Cert != "" {
		return r.certs, nil
	}
	scfg, _, err := bench.EchoTLSConfigs()
	if err != nil {
		return r.certs, err
	}
	dir, err := os.MkdirTemp("", "loopbench-peers-tls-")
	if err != nil {
		return r.certs, err
	}
	r.cleanups = append(r.cleanups, func() { os.RemoveAll(dir) })
	r.certs, err = tlscert.WriteFiles(dir, "server", scfg.Certificates[0], nil)
	return r.certs, err
}

// measureEcho runs loopbench load's closed loop on addr (over TLS with
// the workloads' client config in a TLS mode) and writes the line.
func (r *peersRun) measureEcho(ctx context.Context, bname, addr string, conns int, mode echoMode) error {
	warm := 500 * time.Millisecond
	if r.f.quick {
		warm = 100 * time.Millisecond
	}
	cfg := load.Config{Addr: addr, Conns: conns, Size: 1024, Duration: r.f.echoTime, Warmup: warm, Timeout: 2 * time.Second}
	if mode.tls {
		_, ccfg, err := bench.EchoTLSConfigs()
		if err != nil {
			return err
		}
		cfg.Dial = func(addr string) (net.Conn, error) {
			return tls.DialWithDialer(&net.Dialer{Timeout: cfg.Timeout}, "tcp", addr, ccfg)
		}
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
		{Value: rep.Cores(), Unit: "generator-cores"}})
}

// measureHandshakes makes full handshakes with addr from conns
// goroutines for the echo time and writes the line.
func (r *peersRun) measureHandshakes(bname, addr string, conns int) error {
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
