// Package echo holds the echo servers the network benchmarks, tests and
// the CLI run: a protocol-style server and a task-style server on any
// loopbench variant (with TLS too), and gonet, a goroutine-per-connection
// server on the standard net package (and crypto/tls), as the baseline.
package echo

import (
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"sync"

	"github.com/loopbench/loopbench"
	"github.com/loopbench/loopbench/internal/sys/sock"
)

// protocol echoes what it receives through its transport, and follows the
// transport's flow control: it stops reading while the peer does not read
// its echoes. Echoing allocates nothing once the socket takes the writes.
type protocol struct {
	loopbench.ProtocolBase
	t *loopbench.Transport
	m *meter
}

func (p *protocol) ConnectionMade(t *loopbench.Transport) { p.t = t }
func (p *protocol) DataReceived(data []byte)              { p.m.received(len(data)); p.t.Write(data) }
func (p *protocol) PauseWriting()                         { p.t.PauseReading() }
func (p *protocol) ResumeWriting()                        { p.t.ResumeReading() }

// ServeProtocol starts a protocol-style echo server on l; opts are
// CreateServer's (WithTLS: a TLS echo server).
func ServeProtocol(l *loopbench.Loop, network, address string, opts ...loopbench.NetOption) (*loopbench.Server, error) {
	return ServeProtocolWork(l, nil, network, address, opts...)
}

// ServeProtocolWork is ServeProtocol spending w on every request (none if
// w is nil).
func ServeProtocolWork(l *loopbench.Loop, w *Work, network, address string, opts ...loopbench.NetOption) (*loopbench.Server, error) {
	return l.CreateServer(network, address, func() loopbench.BaseProtocol { return &protocol{m: w.meter()} }, opts...)
}

// TaskServer is a task-style echo server: one task accepts with SockAccept,
// and one task per connection loops on the coroutine forms SockRecvInto
// and SockSendAll, as asyncio's users await loop.sock_recv_into and
// loop.sock_sendall.
type TaskServer struct {
	loop   *loopbench.Loop
	fd     int
	addr   net.Addr
	accept *loopbench.Task
	conns  map[*loopbench.Task]int
	work   *Work
}

// BufferSize is the read buffer of each task-style connection.
const BufferSize = 64 << 10

// ServeTask starts a task-style echo server on l.
func ServeTask(l *loopbench.Loop, network, address string) (*TaskServer, error) {
	return ServeTaskWork(l, nil, network, address)
}

// ServeTaskWork is ServeTask spending w on every request (none if w is
// nil).
func ServeTaskWork(l *loopbench.Loop, w *Work, network, address string) (*TaskServer, error) {
	fd, addr, err := sock.Listen(network, address)
	if err != nil {
		return nil, err
	}
	s := &TaskServer{loop: l, fd: fd, addr: addr, conns: map[*loopbench.Task]int{}, work: w}
	s.accept = l.CreateTask(s.acceptLoop)
	return s, nil
}

// Addr returns the address the server listens on.
func (s *TaskServer) Addr() net.Addr { return s.addr }

func (s *TaskServer) acceptLoop(t *loopbench.Task) (any, error) {
	defer sock.Close(s.fd)
	for {
		v, err := t.Await(s.loop.SockAccept(s.fd))
		if err != nil {
			return nil, err
		}
		c := v.(loopbench.AcceptedConn)
		s.conns[s.loop.CreateTask(func(t *loopbench.Task) (any, error) { return s.serve(t, c.Fd) })] = c.Fd
	}
}

func (s *TaskServer) serve(t *loopbench.Task, fd int) (any, error) {
	defer func() {
		sock.Close(fd)
		delete(s.conns, t)
	}()
	buf := make([]byte, BufferSize)
	m := s.work.meter()
	for {
		n, err := loopbench.SockRecvInto(t, fd, buf)
		if err != nil || n == 0 {
			return nil, err
		}
		m.received(n)
		if err := loopbench.SockSendAll(t, fd, buf[:n]); err != nil {
			return nil, err
		}
	}
}

// Close cancels the accepting task and the connection tasks, which close
// their sockets as they end (on the next iteration, or when the loop is
// closed). Call it on the loop's goroutine.
func (s *TaskServer) Close() {
	s.accept.Cancel("echo server closed")
	for t := range s.conns {
		t.Cancel("echo server closed")
	}
}

// Gonet is the baseline echo server: a goroutine per connection on the
// standard net package.
type Gonet struct {
	ln    net.Listener
	mu    sync.Mutex
	conns map[net.Conn]struct{}
	wg    sync.WaitGroup
}

// ServeGonet starts a gonet echo server.
func ServeGonet(network, address string) (*Gonet, error) { return ServeGonetTLS(network, address, nil) }

// ServeGonetTLS starts a gonet echo server over crypto/tls with config (a
// plain one if config is nil); each connection's handshake runs on its
// goroutine.
func ServeGonetTLS(network, address string, config *tls.Config) (*Gonet, error) {
	ln, err := net.Listen(network, address)
	if err != nil {
		return nil, err
	}
	if config != nil {
		ln = tls.NewListener(ln, config)
	}
	g := &Gonet{ln: ln, conns: map[net.Conn]struct{}{}}
	g.wg.Add(1)
	go g.acceptLoop()
	return g, nil
}

// Addr returns the address the server listens on.
func (g *Gonet) Addr() net.Addr { return g.ln.Addr() }

func (g *Gonet) acceptLoop() {
	defer g.wg.Done()
	for {
		c, err := g.ln.Accept()
		if err != nil {
			return
		}
		g.mu.Lock()
		g.conns[c] = struct{}{}
		g.mu.Unlock()
		g.wg.Add(1)
		go g.serve(c)
	}
}

func (g *Gonet) serve(c net.Conn) {
	defer g.wg.Done()
	buf := make([]byte, BufferSize)
	io.CopyBuffer(c, struct{ io.Reader }{c}, buf)
	c.Close()
	g.mu.Lock()
	delete(g.conns, c)
	g.mu.Unlock()
}

// Close stops the server, closes its connections and waits for their
// goroutines.
func (g *Gonet) Close() error {
	err := g.ln.Close()
	g.mu.Lock()
	for c := range g.conns {
		c.Close()
	}
	g.mu.Unlock()
	g.wg.Wait()
	if errors.Is(err, net.ErrClosed) {
		err = nil
	}
	return err
}

// Styles are Listen's styles: the three of asyncio's, then the order's
// floors (floor.go).
var Styles = []string{"protocol", "task", "stream", "protocol-next", "protocol-coroutine"}

// Listen starts the style (one of Styles) echo server on l at address,
// spending w on every request (nil: none), and returns the address it
// listens on. opts (WithTLS) apply to every style but the task style,
// which serves plain TCP.
func Listen(l *loopbench.Loop, style string, w *Work, network, address string, opts ...loopbench.NetOption) (net.Addr, error) {
	var s interface{ Addr() net.Addr }
	var err error
	switch style {
	case "protocol":
		s, err = ServeProtocolWork(l, w, network, address, opts...)
	case "task":
		if len(opts) > 0 {
			return nil, fmt.Errorf("echo: the task-style server serves plain TCP only")
		}
		s, err = ServeTaskWork(l, w, network, address)
	case "stream":
		s, err = ServeStreamWork(l, w, network, address, opts...)
	case "protocol-next", "protocol-coroutine":
		s, err = ServeNext(l, style == "protocol-coroutine", w, network, address, opts...)
	default:
		return nil, fmt.Errorf("echo: unknown style %q (%s)", style, strings.Join(Styles, ", "))
	}
	if err != nil {
		return nil, err
	}
	return s.Addr(), nil
}
