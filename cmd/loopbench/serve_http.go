package main

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/loopbench/loopbench"
	"github.com/loopbench/loopbench/internal/harness/httpserve"
	"github.com/loopbench/loopbench/peers"
)

// checkServeHTTP reports a usage error in serve's flags for -proto http:
// an HTTP/1.1 keep-alive server answering -size bytes, on a loop in
// protocol or stream style, gonet's net/http, or a peer's.
func checkServeHTTP(impl, style string, w *serveWork, set map[string]bool) error {
	switch {
	case impl != "" && impl != "gonet" && !slices.Contains(peers.HTTPServers, impl):
		return usageError{fmt.Sprintf("-proto http: -impl %s serves the echo protocol only; HTTP is served by gonet (net/http) and %s", impl, strings.Join(peers.HTTPServers, ", "))}
	case style != "protocol" && style != "stream":
		return usageError{fmt.Sprintf("-proto http: -style %s: want protocol or stream", style)}
	case w.d > 0:
		return usageError{"-proto http: -work applies to the echo protocol"}
	case w.size < 0:
		return usageError{fmt.Sprintf("-size %d: want 0 or more bytes of body", w.size)}
	case set["tls"] && impl != "":
		return usageError{"-proto http: -tls applies to the loop's servers"}
	}
	return nil
}

// serveHTTP runs the HTTP server chosen until ctx is done.
func serveHTTP(ctx context.Context, cfg loopbench.Config, sc serveChoice, size int, addr string, stdout io.Writer, tlsf *serveTLS) error {
	impl, style := sc.impl, sc.style
	if impl != "" && impl != "gonet" {
		return servePeer(ctx, impl, addr, stdout, func(p *peers.Peer, host, port string) ([]string, error) {
			if err := p.ServesHTTP(ctx); err != nil {
				return nil, err
			}
			return p.HTTPServer(host, port, size), nil
		})
	}
	if impl == "gonet" {
		g, err := httpserve.ServeGonet("tcp", addr, size)
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "listening on %s (gonet net/http, %s of body)\n", g.Addr(), plural(size, "byte"))
		<-ctx.Done()
		return g.Close()
	}
	l, err := loopbench.New(cfg)
	if err != nil {
		return err
	}
	defer l.Close()
	var opts []loopbench.NetOption
	if tlsf.config != nil {
		opts = append(opts, loopbench.WithTLS(tlsf.config))
	}
	a, err := httpserve.Listen(l, style, size, "tcp", addr, opts...)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "listening on %s (%v, HTTP/1.1 %s style, %s of body%s)\n", a, l.Config(), style, plural(size, "byte"), tlsf.note)
	go func() {
		<-ctx.Done()
		l.CallSoonThreadsafe(l.Stop)
	}()
	return l.RunForever()
}
