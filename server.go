package loopbench

import (
	"fmt"
	"net"
	"runtime/debug"
	"time"

	"github.com/loopbench/loopbench/internal/sys/sock"
)

// Server is a listening socket whose connections get a protocol each from
// a factory: asyncio's Server. Its methods are for the loop's goroutine.
type Server struct {
	loop     *Loop
	fd       int
	addr     net.Addr
	factory  func() BaseProtocol
	opts     *netOptions // TLS for the accepted connections, if any
	conns    map[*Transport]struct{}
	closed   bool
	waiters  []*Future
	acceptFn func()
}

// CreateServer listens on address ("host:port", the host a literal IP or
// a name, or a path for network "unix") with SO_REUSEADDR, and serves each
// accepted connection with a Transport and a protocol from factory.
// Connections are accepted in batches of up to 100 per readiness event. A
// host name is looked up before CreateServer returns, which blocks the
// loop for the lookup (a name such as localhost is in /etc/hosts), and
// the server listens on its first address. WithTLS makes every accepted
// connection TLS (the protocol's ConnectionMade follows the handshake);
// WithHandshakeTimeout and WithShutdownTimeout bound its handshake and
// its Close.
func (l *Loop) CreateServer(network, address string, factory func() BaseProtocol, opts ...NetOption) (*Server, error) {
	if l.c.closed.Load() {
		return nil, closedError("CreateServer")
	}
	o, err := applyNetOptions(opts, true, false)
	if err != nil {
		return nil, fmt.Errorf("loopbench: CreateServer(%s, %s): %w", network, address, err)
	}
	listen, err := listenAddress(network, address)
	if err != nil {
		return nil, fmt.Errorf("loopbench: CreateServer(%s, %s): %w", network, address, err)
	}
	fd, addr, err := sock.Listen(network, listen)
	if err != nil {
		return nil, fmt.Errorf("loopbench: CreateServer(%s, %s): %w", network, address, err)
	}
	s := &Server{loop: l, fd: fd, addr: addr, factory: factory, opts: o, conns: map[*Transport]struct{}{}}
	s.acceptFn = s.acceptReady
	if err := l.AddReader(fd, s.acceptFn); err != nil {
		sock.Close(fd)
		return nil, err
	}
	l.c.servers().add(s)
	return s, nil
}

// Addr returns the address the server listens on.
func (s *Server) Addr() net.Addr { return s.addr }

// Addrs returns the addresses the server listens on (one per listening
// socket; loopbench servers have one).
func (s *Server) Addrs() []net.Addr { return []net.Addr{s.addr} }

// Connections returns how many connections the server serves now.
func (s *Server) Connections() int { return len(s.conns) }

// acceptReady accepts up to sock.Backlog pending connections.
func (s *Server) acceptReady() {
	for range sock.Backlog {
		fd, _, err := sock.Accept(s.fd)
		if sock.IsAgain(err) {
			return
		}
		if err != nil {
			s.acceptFailed(err)
			return
		}
		proto, err := s.loop.newProtocol(fd, s.factory)
		if err != nil {
			continue
		}
		t, err := s.loop.newTransport(fd, proto, s, tlsFor(s.opts, true, nil))
		if err != nil {
			sock.Close(fd)
			s.loop.c.report(ExceptionContext{Message: "server protocol", Err: err})
			continue
		}
		s.conns[t] = struct{}{}
	}
}

// newProtocol returns a protocol from factory for the connection on fd.
// If the factory panics, fd is closed, the panic goes to the exception
// handler, and the error says so.
func (l *Loop) newProtocol(fd int, factory func() BaseProtocol) (p BaseProtocol, err error) {
	defer func() {
		if r := recover(); r != nil {
			sock.Close(fd)
			err = fmt.Errorf("loopbench: protocol factory panicked: %v", r)
			l.c.report(ExceptionContext{Message: "protocol factory", Err: err, Panic: r, Stack: debug.Stack()})
		}
	}()
	return factory(), nil
}

// acceptFailed reports an accept error (such as running out of fds) and,
// as asyncio does, stops accepting for a second.
func (s *Server) acceptFailed(err error) {
	s.loop.c.report(ExceptionContext{Message: "accept on " + s.addr.String(), Err: err})
	s.loop.RemoveReader(s.fd)
	s.loop.CallLater(time.Second, func() {
		if !s.closed {
			s.loop.AddReader(s.fd, s.acceptFn)
		}
	})
}

func (s *Server) detach(t *Transport) {
	delete(s.conns, t)
	s.wakeWaiters()
}

// Close stops listening. Connections already accepted go on (asyncio's
// Server.close); CloseClients closes them.
func (s *Server) Close() {
	if s.closed {
		return
	}
	s.closed = true
	if s.loop.IsClosed() {
		return // the loop's Close closed the socket already
	}
	s.loop.RemoveReader(s.fd)
	s.closeSocket()
	s.loop.c.servers().remove(s)
	s.wakeWaiters()
}

// closeSocket stops listening, then closes the socket: a poll the
// selector may still have in flight holds the file open, and the
// shutdown refuses connections all the same (sock.StopListening).
func (s *Server) closeSocket() {
	sock.StopListening(s.fd)
	sock.Close(s.fd)
}

// CloseClients closes every connection the server serves (buffered data
// is written first).
func (s *Server) CloseClients() {
	for t := range s.conns {
		t.Close()
	}
}

// AbortClients aborts every connection the server serves.
func (s *Server) AbortClients() {
	for t := range s.conns {
		t.Abort()
	}
}

// WaitClosed returns a future done once the server is closed and all its
// connections are gone.
func (s *Server) WaitClosed() *Future {
	f := s.loop.CreateFuture()
	s.waiters = append(s.waiters, f)
	s.wakeWaiters()
	return f
}

func (s *Server) wakeWaiters() {
	if !s.closed || len(s.conns) > 0 {
		return
	}
	for _, f := range s.waiters {
		f.SetResult(nil)
	}
	s.waiters = nil
}

// CreateConnection connects to address and returns a future whose result
// is the *Transport, serving a protocol from factory. The address is
// "host:port", the host a name or a literal IP ("127.0.0.1:80",
// "[::1]:80", "localhost:80"), or a path for network "unix". A name is
// looked up off the loop (GetAddrInfo) and its addresses are tried in
// order; when all fail, the future fails with the first error. The
// connect is non-blocking; a refused connection fails the future. With
// WithTLS the future's result comes after the TLS handshake, or its error
// (which the protocol's ConnectionLost gets too) if the handshake fails;
// the server name is WithServerName's, else the config's, else the host.
func (l *Loop) CreateConnection(network, address string, factory func() BaseProtocol, opts ...NetOption) *Future {
	f := l.CreateFuture()
	fail := func(err error) {
		if !f.Done() {
			f.SetException(fmt.Errorf("loopbench: CreateConnection(%s, %s): %w", network, address, err))
		}
	}
	o, err := applyNetOptions(opts, false, false)
	if err != nil {
		fail(err)
		return f
	}
	host, _, _ := net.SplitHostPort(address)
	var tr *Transport
	conn := l.dial(network, address)
	conn.AddDoneCallback(func(c *Future) {
		v, err := c.Result()
		switch {
		case err != nil:
			fail(err)
		case f.Done():
			l.c.dialer.closeFd(v.(int))
		default:
			tr = l.connected(f, v.(int), host, factory, o, fail)
		}
	})
	f.onCancel = cancelFunc(func(msg string) bool {
		if !f.cancel(msg) {
			return false
		}
		conn.Cancel(msg)
		if tr != nil {
			tr.Abort() // the handshake's
		}
		return true
	})
	return f
}

// connected makes the transport of CreateConnection's future f on the
// connected socket fd: its result at once, or with TLS once the handshake
// is done.
func (l *Loop) connected(f *Future, fd int, host string, factory func() BaseProtocol, o *netOptions, fail func(error)) *Transport {
	l.c.dialer.release(fd) // the transport's from here, or closed below
	proto, err := l.newProtocol(fd, factory)
	if err != nil {
		fail(err)
		return nil
	}
	var tr *Transport
	tr, err = l.newTransport(fd, proto, nil, tlsFor(o.forClient(host), false, func(err error) {
		switch {
		case f.Done():
			tr.Abort() // cancelled during the handshake
		case err != nil:
			fail(err)
		default:
			f.SetResult(tr)
		}
	}))
	if err != nil {
		sock.Close(fd)
		fail(err)
		return nil
	}
	tr.host = host
	if o.tls == nil {
		f.SetResult(tr)
	}
	return tr
}

// servers is the loop's part that holds its listening servers.
func (c *core) servers() *openSet[*Server] { return c.parts[partServers].(*openSet[*Server]) }
