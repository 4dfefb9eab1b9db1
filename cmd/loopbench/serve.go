package main

import (
	"context"
	"crypto/tls"
	"os"
	"os/exec"
	"slices"
	"strings"
	"syscall"
	"time"

	"errors"
	"flag"
	"fmt"
	"io"
	"net"

	"github.com/loopbench/loopbench/peers"

	"github.com/loopbench/loopbench"
	"github.com/loopbench/loopbench/internal/harness/echo"
)

const serveUsage = `usage: loopbench serve [flags]

Runs an echo server until interrupted (or for -duration): a
protocol-style, task-style or stream-style server on a loopbench variant;
gonet, the goroutine-per-connection server on the net package; or a peer's
(asyncio, uvloop, libuv: see loopbench peers). Prints "listening on ADDR"
once it accepts connections, for loopbench load or another client. With
-tls it serves TLS (the protocol- or stream-style server, gonet on
crypto/tls, asyncio or uvloop with Python's ssl), with -cert and -key or
else a throwaway certificate, whose fingerprint the listening line gives
(loopbench load -tls -insecure accepts it).

With -proto http it serves HTTP/1.1 instead: a keep-alive server that
answers every request with 200 and -size bytes of body (pipelined
requests in order; 400 and a close for one that does not parse), in
protocol or stream style on a loopbench variant, Go's net/http with
-impl gonet, or a peer's (asyncio or uvloop with httptools, libuv: see
loopbench peers -proto http) with -impl (loopbench load -proto http, wrk
or any HTTP client).

With -work D a loop server is a server of known capacity: 1/D requests/s
(per loop thread), for checking load generators: it spends D of CPU, a
busy loop on the loop's thread, on every request before echoing it. The
echo protocol has no framing, so a request is -size bytes of a
connection's stream: give load's -size (default 1024 on both).

Examples:
  loopbench serve -addr 127.0.0.1:9000
  loopbench serve -variant ready=deque/selector=poll -style task -cpu 0
  loopbench serve -impl gonet -addr 127.0.0.1:9001
  loopbench serve -proto http -size 1024 -addr 127.0.0.1:8080 -cpu 0
  loopbench serve -impl uvloop -addr localhost:9002 -cpu 0
  loopbench serve -tls -addr 127.0.0.1:9443
  loopbench serve -work 100us -cpu 0   # capacity 10,000 requests/s
  loopbench serve -tls -impl uvloop -cert server.pem -key server-key.pem

Flags:
`

func runServe(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.Usage = func() { fmt.Fprint(stderr, serveUsage); fs.PrintDefaults() }
	variant := fs.String("variant", "", "loop variant (as 'loopbench list' prints); default: the default variant")
	impl := fs.String("impl", "", "serve without a loopbench loop: gonet (the net package, a goroutine per connection), or a peer: asyncio, uvloop, libuv")
	style := fs.String("style", "protocol", "protocol, task or stream")
	proto := fs.String("proto", "echo", "what to serve: echo (each request's bytes back) or http (HTTP/1.1 keep-alive, 200 with -size bytes of body)")
	addr := fs.String("addr", "127.0.0.1:0", "listen address: host (a name or an IP) and port")
	duration := fs.Duration("duration", 0, "stop after this long (0: until interrupted)")
	cpus := fs.String("cpu", "", "pin the server to these CPUs (e.g. 0)")
	tlsf := addServeTLSFlags(fs)
	workf := addServeWorkFlags(fs)
	if err := parseFlags(fs, args, stderr); err != nil {
		return err
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	cfg, err := loopbench.ParseVariant(*variant)
	switch {
	case err != nil:
		return usageError{err.Error()}
	case *impl != "" && *impl != "gonet" && !slices.Contains(peers.EchoServers, *impl):
		return usageError{fmt.Sprintf("-impl %q: want gonet, %s", *impl, strings.Join(peers.EchoServers, ", "))}
	case *impl != "" && set["style"]:
		return usageError{fmt.Sprintf("-style applies to loop servers; -impl %s has none", *impl)}
	case *impl != "" && set["variant"]:
		return usageError{fmt.Sprintf("-variant applies to loop servers; -impl %s has none", *impl)}
	case *style != "protocol" && *style != "task" && *style != "stream":
		return usageError{fmt.Sprintf("-style %q: want protocol, task or stream", *style)}
	case *duration < 0:
		return usageError{fmt.Sprintf("-duration %v: want 0 (until interrupted) or more", *duration)}
	}
	if err := tlsf.check(*impl, *style); err != nil {
		return err
	}
	var work *echo.Work
	switch *proto {
	case "http":
		err = checkServeHTTP(*impl, *style, workf, set)
	case "echo":
		work, err = workf.check(*impl, set)
	default:
		err = usageError{fmt.Sprintf("-proto %q: want echo or http", *proto)}
	}
	if err != nil {
		return err
	}
	resolved, err := resolveListen(*addr)
	if err != nil {
		return usageError{fmt.Sprintf("-addr %q: %v", *addr, err)}
	}
	if err := pin(*cpus); err != nil {
		return err
	}
	host, _, _ := net.SplitHostPort(*addr)
	rhost, _, _ := net.SplitHostPort(resolved)
	cleanup, err := tlsf.setup(host, rhost)
	defer cleanup()
	if err != nil {
		return err
	}
	ctx, stop := interruptContext(serving)
	defer stop()
	if *duration > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, *duration)
		defer cancel()
	}
	if *proto == "http" {
		return serveHTTP(ctx, cfg, serveChoice{impl: *impl, style: *style}, workf.size, resolved, stdout, tlsf)
	}
	return serveUntil(ctx, cfg, serveChoice{*impl, *style, work}, resolved, stdout, stderr, tlsf)
}

// serveChoice is the server serve runs: a peer's or gonet (impl), or a
// loop's of a style, spending work on every request.
type serveChoice struct {
	impl, style string
	work        *echo.Work
}

// serveUntil runs the echo server chosen (a peer's, gonet, or a loop's)
// until ctx is done.
func serveUntil(ctx context.Context, cfg loopbench.Config, sc serveChoice, addr string, stdout, stderr io.Writer, tlsf *serveTLS) error {
	impl := sc.impl
	if impl != "" && impl != "gonet" {
		if tlsf.on {
			fmt.Fprintf(stderr, "loopbench serve: %s serves %s\n", impl, strings.TrimPrefix(tlsf.note, ", "))
		}
		return servePeer(ctx, impl, addr, stdout, echoPeer(tlsf))
	}
	if impl == "gonet" {
		g, err := echo.ServeGonetTLS("tcp", addr, tlsf.config)
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "listening on %s (gonet%s)\n", g.Addr(), tlsf.note)
		<-ctx.Done()
		return g.Close()
	}
	return serveLoop(ctx, cfg, sc, addr, stdout, tlsf)
}

// resolveListen turns a listen address with a host name into one with
// the name's first address.
func resolveListen(addr string) (string, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return "", err
	}
	if host == "" || net.ParseIP(host) != nil {
		return addr, nil
	}
	ta, err := net.ResolveTCPAddr("tcp", addr)
	var dns *net.DNSError
	if errors.As(err, &dns) {
		return "", fmt.Errorf("lookup %s: %s", dns.Name, dns.Err) // without the resolver's address
	}
	if err != nil {
		return "", err
	}
	return net.JoinHostPort(ta.IP.String(), port), nil
}

// servePeer runs a peer's server (built or found as loopbench peers
// does) until ctx is done, passing on its output: the command argv
// returns for the peer on host and port, or its error. The peer inherits
// this process's CPU pinning.
func servePeer(ctx context.Context, name, addr string, stdout io.Writer, argv func(p *peers.Peer, host, port string) ([]string, error)) error {
	ready, skipped := peers.Find(ctx, []string{name}, peers.CacheDir())
	if len(ready) == 0 {
		return fmt.Errorf("-impl %s: %s", name, skipped[0].Reason)
	}
	host, port, _ := net.SplitHostPort(addr)
	args, err := argv(ready[0], host, port)
	if err != nil {
		return fmt.Errorf("-impl %s: %v", name, err)
	}
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Stdout, cmd.Stderr = stdout, os.Stderr
	if err := cmd.Start(); err != nil {
		return err
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		return fmt.Errorf("the %s server ended: %v", name, err)
	case <-ctx.Done():
		cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			cmd.Process.Kill()
			<-done
		}
		return nil
	}
}

// echoPeer is the command of a peer's echo server, over TLS when tlsf
// is on.
func echoPeer(tlsf *serveTLS) func(p *peers.Peer, host, port string) ([]string, error) {
	return func(p *peers.Peer, host, port string) ([]string, error) {
		if tlsf.on {
			argv, _ := p.EchoServerTLS(host, port, tlsf.files.Cert, tlsf.files.Key)
			return argv, nil
		}
		argv, _ := p.EchoServer(host, port)
		return argv, nil
	}
}

// serveLoop runs the echo server on a loop until ctx is done.
func serveLoop(ctx context.Context, cfg loopbench.Config, sc serveChoice, addr string, stdout io.Writer, tlsf *serveTLS) error {
	l, err := loopbench.New(cfg)
	if err != nil {
		return err
	}
	defer l.Close()
	a, err := listenEcho(l, sc, addr, tlsf.config)
	if err != nil {
		return err
	}
	note := tlsf.note
	if sc.work != nil {
		note += fmt.Sprintf(", %v of work a request", sc.work.D)
		if sc.work.Size > 0 {
			note += " of " + plural(sc.work.Size, "byte")
		}
	}
	fmt.Fprintf(stdout, "listening on %s (%v, %s style%s)\n", a, l.Config(), sc.style, note)
	go func() {
		<-ctx.Done()
		l.CallSoonThreadsafe(l.Stop)
	}()
	return l.RunForever()
}

// listenEcho starts the loop's echo server of the style chosen (over TLS
// with a config) and returns its address.
func listenEcho(l *loopbench.Loop, sc serveChoice, addr string, config *tls.Config) (string, error) {
	var opts []loopbench.NetOption
	if config != nil {
		opts = append(opts, loopbench.WithTLS(config))
	}
	a, err := echo.Listen(l, sc.style, sc.work, "tcp", addr, opts...)
	if err != nil {
		return "", err
	}
	return a.String(), nil
}
