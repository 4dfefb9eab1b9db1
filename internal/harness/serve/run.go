package serve

import (
	"context"
	"crypto/tls"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"strings"

	"github.com/loopbench/loopbench"
	"github.com/loopbench/loopbench/internal/measure/echo"
	"github.com/loopbench/loopbench/internal/measure/loadresult"
	"github.com/loopbench/loopbench/peers"
)

// Run serves p at addr (ResolveListen's form of given, the address as
// given, whose host a throwaway certificate also names) until ctx is
// done or p's Duration has passed, its listening line on stdout. A
// peer's server inherits this process's CPU pinning and its output.
func (p *Plan) Run(ctx context.Context, given, addr string, stdout, stderr io.Writer) error {
	host, _, _ := net.SplitHostPort(given)
	rhost, _, _ := net.SplitHostPort(addr)
	t, cleanup, err := p.c.TLS.setup(host, rhost)
	defer cleanup()
	if err != nil {
		return err
	}
	if p.c.Duration > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, p.c.Duration)
		defer cancel()
	}
	if p.c.Proto == "http" {
		return p.serveHTTP(ctx, addr, stdout, t)
	}
	return p.serveEcho(ctx, addr, stdout, stderr, t)
}

// serveEcho runs the echo server chosen (a peer's, gonet, or a loop's)
// until ctx is done.
func (p *Plan) serveEcho(ctx context.Context, addr string, stdout, stderr io.Writer, t tlsSetup) error {
	switch impl := p.c.Impl; impl {
	case "":
		return p.serveLoop(ctx, addr, stdout, t)
	case "gonet":
		g, err := echo.ServeGonetTLS("tcp", addr, t.config)
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "%s%s (gonet%s)\n", ListeningPrefix, g.Addr(), t.note)
		<-ctx.Done()
		return g.Close()
	default:
		if p.c.TLS.On {
			fmt.Fprintf(stderr, "loopbench serve: %s serves %s\n", impl, strings.TrimPrefix(t.note, ", "))
		}
		return servePeer(ctx, impl, addr, stdout, func(pr *peers.Peer, host, port string) ([]string, error) {
			if p.c.TLS.On {
				argv, _ := pr.EchoServerTLS(host, port, t.files.Cert, t.files.Key)
				return argv, nil
			}
			argv, _ := pr.EchoServer(host, port)
			return argv, nil
		})
	}
}

// serveLoop runs the echo server on a loop until ctx is done.
func (p *Plan) serveLoop(ctx context.Context, addr string, stdout io.Writer, t tlsSetup) error {
	l, err := loopbench.New(p.loop)
	if err != nil {
		return err
	}
	defer l.Close()
	a, err := echo.Listen(l, p.c.Style, p.work, "tcp", addr, tlsOptions(t.config)...)
	if err != nil {
		return err
	}
	note := t.note
	if w := p.work; w != nil {
		note += fmt.Sprintf(", %v of work a request", w.D)
		if w.Size > 0 {
			note += " of " + loadresult.Plural(w.Size, "byte")
		}
	}
	fmt.Fprintf(stdout, "%s%s (%v, %s style%s)\n", ListeningPrefix, a, l.Config(), p.c.Style, note)
	return runLoop(ctx, l)
}

// tlsOptions are a loop server's options for config (nil: none).
func tlsOptions(config *tls.Config) []loopbench.NetOption {
	if config == nil {
		return nil
	}
	return []loopbench.NetOption{loopbench.WithTLS(config)}
}

// runLoop runs l until ctx is done.
func runLoop(ctx context.Context, l *loopbench.Loop) error {
	go func() {
		<-ctx.Done()
		l.CallSoonThreadsafe(l.Stop)
	}()
	return l.RunForever()
}

// servePeer runs a peer's server (built or found as loopbench peers
// does) until ctx is done, passing on its output: the command argv
// returns for the peer on host and port, or its error.
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
	exited := make(chan struct{})
	var werr error
	go func() { werr = cmd.Wait(); close(exited) }()
	select {
	case <-exited:
		return fmt.Errorf("the %s server ended: %v", name, werr)
	case <-ctx.Done():
		terminate(cmd.Process, exited)
		return nil
	}
}
