package main

import (
	"context"
	"fmt"
	"io"

	"github.com/loopbench/loopbench"
	"github.com/loopbench/loopbench/internal/httpserve"
)

// checkServeHTTP reports a usage error in serve's flags for -proto http:
// an HTTP/1.1 keep-alive server answering -size bytes, on a loop in
// protocol or stream style, or gonet's net/http.
func checkServeHTTP(impl, style string, w *serveWork, set map[string]bool) error {
	switch {
	case impl != "" && impl != "gonet":
		return usageError{fmt.Sprintf("-proto http: -impl %s serves the echo protocol only; gonet serves HTTP through net/http", impl)}
	case style != "protocol" && style != "stream":
		return usageError{fmt.Sprintf("-proto http: -style %s: want protocol or stream", style)}
	case w.d > 0:
		return usageError{"-proto http: -work applies to the echo protocol"}
	case w.size < 0:
		return usageError{fmt.Sprintf("-size %d: want 0 or more bytes of body", w.size)}
	case set["tls"] && impl == "gonet":
		return usageError{"-proto http: -tls applies to the loop's servers"}
	}
	return nil
}

// serveHTTP runs the HTTP server chosen until ctx is done.
func serveHTTP(ctx context.Context, cfg loopbench.Config, impl, style string, size int, addr string, stdout io.Writer, tlsf *serveTLS) error {
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
