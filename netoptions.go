package loopbench

import (
	"crypto/tls"
	"errors"
	"fmt"
	"time"
)

// Asyncio's defaults for ssl_handshake_timeout and ssl_shutdown_timeout.
const (
	DefaultTLSHandshakeTimeout = 60 * time.Second
	DefaultTLSShutdownTimeout  = 30 * time.Second
)

// A NetOption is an optional argument of CreateServer, CreateConnection,
// StartServer, OpenConnection and StartTLS: asyncio's keyword arguments
// ssl=, server_hostname=, ssl_handshake_timeout= and
// ssl_shutdown_timeout=, and limit= of the stream calls. Without options
// the calls are plain text, as before they took options.
type NetOption func(*netOptions)

type netOptions struct {
	tls              *tls.Config
	serverName       string
	nameSet          bool
	handshakeTimeout time.Duration
	shutdownTimeout  time.Duration
	streamLimit      int  // WithStreamLimit's
	limitSet         bool // WithStreamLimit was given
	stream           bool // the call is StartServer's or OpenConnection's
}

// WithTLS makes the connections TLS with config: a server's accepted
// connections handshake as the server, a connection's as the client.
// ConnectionMade follows the handshake. The config is not modified; a
// client's is copied when it needs a server name.
func WithTLS(config *tls.Config) NetOption { return func(o *netOptions) { o.tls = config } }

// WithServerName is the name a TLS client sends (SNI) and checks the
// server's certificate against (asyncio's server_hostname). Without it a
// client uses its config's ServerName, else the host of the address it
// connects to.
func WithServerName(name string) NetOption {
	return func(o *netOptions) { o.serverName, o.nameSet = name, true }
}

// WithHandshakeTimeout bounds the TLS handshake (default 60 s, asyncio's):
// a handshake not done by then fails with an error that wraps ErrTimeout.
func WithHandshakeTimeout(d time.Duration) NetOption {
	return func(o *netOptions) { o.handshakeTimeout = d }
}

// WithShutdownTimeout bounds how long Close waits for the peer's
// close_notify (default 30 s, asyncio's); then the connection is aborted
// and ConnectionLost gets an error that wraps ErrTimeout.
func WithShutdownTimeout(d time.Duration) NetOption {
	return func(o *netOptions) { o.shutdownTimeout = d }
}

// errTLSOption is the error of a TLS option given without WithTLS.
var errTLSOption = errors.New("WithServerName, WithHandshakeTimeout and WithShutdownTimeout need WithTLS")

// applyNetOptions collects opts; server says whether they are a server's
// (which takes no server name). needTLS is StartTLS's: the config is
// required.
func applyNetOptions(opts []NetOption, server, needTLS bool) (*netOptions, error) {
	o := &netOptions{}
	for _, opt := range opts {
		opt(o)
	}
	switch {
	case o.tls == nil && (needTLS || o.nameSet || o.handshakeTimeout != 0 || o.shutdownTimeout != 0):
		if needTLS {
			return nil, errors.New("StartTLS needs a *tls.Config")
		}
		return nil, errTLSOption
	case server && o.nameSet:
		return nil, errors.New("WithServerName is a client's option")
	case o.limitSet && o.streamLimit <= 0:
		return nil, fmt.Errorf("WithStreamLimit(%d): want a limit > 0", o.streamLimit)
	case o.limitSet && !o.stream:
		return nil, errors.New("WithStreamLimit is an option of StartServer and OpenConnection")
	case o.handshakeTimeout < 0 || o.shutdownTimeout < 0:
		return nil, fmt.Errorf("TLS timeouts %v and %v: want 0 (the default) or more", o.handshakeTimeout, o.shutdownTimeout)
	}
	if o.handshakeTimeout == 0 {
		o.handshakeTimeout = DefaultTLSHandshakeTimeout
	}
	if o.shutdownTimeout == 0 {
		o.shutdownTimeout = DefaultTLSShutdownTimeout
	}
	return o, nil
}

// clientConfig returns the config a client handshakes with: o.tls with
// the server name set (from WithServerName, else host) when it has none.
func (o *netOptions) clientConfig(host string) *tls.Config {
	name := o.tls.ServerName
	switch {
	case o.nameSet:
		name = o.serverName
	case name == "":
		name = host
	}
	if name == o.tls.ServerName {
		return o.tls
	}
	c := o.tls.Clone()
	c.ServerName = name
	return c
}

// forClient returns o with its config ready for a client of host.
func (o *netOptions) forClient(host string) *netOptions {
	if o.tls == nil {
		return o
	}
	c := *o
	c.tls = o.clientConfig(host)
	return &c
}
