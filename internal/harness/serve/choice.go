package serve

import (
	"errors"
	"fmt"
	"net"
	"slices"
	"strings"
	"time"

	"github.com/loopbench/loopbench"
	"github.com/loopbench/loopbench/internal/measure/echo"
	"github.com/loopbench/loopbench/peers"
)

// Choice is the server serve is asked for, as its flags give it.
type Choice struct {
	Variant  string        // the loop's variant as loopbench list prints it ("": the default)
	Impl     string        // "" (a loop's server), gonet, or a peer's
	Style    string        // a loop's server's: one of echo.Styles
	Proto    string        // echo, or http (HTTP/1.1 keep-alive)
	Work     time.Duration // CPU a loop's echo server spends on every request (0: none)
	Size     int           // with Work, a request's bytes; with http, every response body's
	Duration time.Duration // how long to serve (0: until the context is done)
	TLS      TLS
}

// Plan is a checked Choice, ready to run.
type Plan struct {
	c    Choice
	loop loopbench.Config
	work *echo.Work // nil: none
}

// Check validates c; set names the flags given on the command line,
// which may not go with the server chosen even at their defaults. Every
// error it returns is the choice's, one line naming the flag.
func (c Choice) Check(set map[string]bool) (*Plan, error) {
	cfg, err := loopbench.ParseVariant(c.Variant)
	switch {
	case err != nil:
		return nil, err
	case c.Impl != "" && c.Impl != "gonet" && !slices.Contains(peers.EchoServers, c.Impl):
		return nil, fmt.Errorf("-impl %q: want gonet, %s", c.Impl, strings.Join(peers.EchoServers, ", "))
	case c.Impl != "" && set["style"]:
		return nil, fmt.Errorf("-style applies to loop servers; -impl %s has none", c.Impl)
	case c.Impl != "" && set["variant"]:
		return nil, fmt.Errorf("-variant applies to loop servers; -impl %s has none", c.Impl)
	case !slices.Contains(echo.Styles, c.Style):
		return nil, fmt.Errorf("-style %q: want protocol, task or stream (or an order's floor: protocol-next, protocol-coroutine)", c.Style)
	case c.Duration < 0:
		return nil, fmt.Errorf("-duration %v: want 0 (until interrupted) or more", c.Duration)
	}
	if err := c.TLS.check(c.Impl, c.Style); err != nil {
		return nil, err
	}
	p := &Plan{c: c, loop: cfg}
	switch c.Proto {
	case "http":
		err = c.checkHTTP(set)
	case "echo":
		p.work, err = c.checkWork(set)
	default:
		err = fmt.Errorf("-proto %q: want echo or http", c.Proto)
	}
	if err != nil {
		return nil, err
	}
	return p, nil
}

// checkHTTP checks the choice of an HTTP/1.1 keep-alive server answering
// Size bytes: on a loop in protocol or stream style, gonet's net/http,
// or a peer's.
func (c Choice) checkHTTP(set map[string]bool) error {
	switch {
	case c.Impl != "" && c.Impl != "gonet" && !slices.Contains(peers.HTTPServers, c.Impl):
		return fmt.Errorf("-proto http: -impl %s serves the echo protocol only; HTTP is served by gonet (net/http) and %s", c.Impl, strings.Join(peers.HTTPServers, ", "))
	case c.Style != "protocol" && c.Style != "stream":
		return fmt.Errorf("-proto http: -style %s: want protocol or stream", c.Style)
	case c.Work > 0:
		return errors.New("-proto http: -work applies to the echo protocol")
	case c.Size < 0:
		return fmt.Errorf("-size %d: want 0 or more bytes of body", c.Size)
	case set["tls"] && c.Impl != "":
		return errors.New("-proto http: -tls applies to the loop's servers")
	}
	return nil
}

// checkWork checks -work and -size for an echo server and returns the
// work (nil for none).
func (c Choice) checkWork(set map[string]bool) (*echo.Work, error) {
	switch {
	case c.Work < 0:
		return nil, fmt.Errorf("-work %v: want 0 (none) or more", c.Work)
	case c.Size < 0:
		return nil, fmt.Errorf("-size %d: want 0 (a read is a request) or more", c.Size)
	case set["size"] && c.Work == 0:
		return nil, errors.New("-size needs -work")
	case c.Impl != "" && c.Work > 0:
		return nil, fmt.Errorf("-work applies to loop servers; -impl %s has none", c.Impl)
	case c.Work == 0:
		return nil, nil
	}
	return &echo.Work{D: c.Work, Size: c.Size}, nil
}

// ResolveListen turns a listen address with a host name into one with
// the name's first address.
func ResolveListen(addr string) (string, error) {
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
