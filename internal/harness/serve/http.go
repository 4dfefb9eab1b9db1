package serve

import (
	"context"
	"fmt"
	"io"

	"github.com/loopbench/loopbench"
	"github.com/loopbench/loopbench/internal/harness/httpserve"
	"github.com/loopbench/loopbench/internal/measure/loadresult"
	"github.com/loopbench/loopbench/peers"
)

// serveHTTP runs the HTTP server chosen until ctx is done.
func (p *Plan) serveHTTP(ctx context.Context, addr string, stdout io.Writer, t tlsSetup) error {
	size, body := p.c.Size, loadresult.Plural(p.c.Size, "byte")
	switch impl := p.c.Impl; impl {
	case "":
	case "gonet":
		g, err := httpserve.ServeGonet("tcp", addr, size)
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "%s%s (gonet net/http, %s of body)\n", ListeningPrefix, g.Addr(), body)
		<-ctx.Done()
		return g.Close()
	default:
		return servePeer(ctx, impl, addr, stdout, func(pr *peers.Peer, host, port string) ([]string, error) {
			if err := pr.ServesHTTP(ctx); err != nil {
				return nil, err
			}
			return pr.HTTPServer(host, port, size), nil
		})
	}
	l, err := loopbench.New(p.loop)
	if err != nil {
		return err
	}
	defer l.Close()
	a, err := httpserve.Listen(l, p.c.Style, size, "tcp", addr, tlsOptions(t.config)...)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "%s%s (%v, HTTP/1.1 %s style, %s of body%s)\n", ListeningPrefix, a, l.Config(), p.c.Style, body, t.note)
	return runLoop(ctx, l)
}
