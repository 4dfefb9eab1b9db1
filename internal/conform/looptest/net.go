package looptest

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/loopbench/loopbench"
	"github.com/loopbench/loopbench/internal/measure/echo"
)

// RunNet runs the network suite on cfg: transports and protocols,
// task-style sockets, the echo servers, flow control, resets and closes.
func RunNet(t *testing.T, cfg loopbench.Config) {
	runEach(t, cfg, []loopTest{
		{"EchoProtocol", func(t *testing.T, l *loopbench.Loop) { testEchoSizes(t, l, protocolServer(t, l)) }},
		{"EchoTask", func(t *testing.T, l *loopbench.Loop) { testEchoSizes(t, l, taskServer(t, l)) }},
		{"ManyConnsProtocol", func(t *testing.T, l *loopbench.Loop) { testManyConns(t, l, protocolServer(t, l)) }},
		{"ManyConnsTask", func(t *testing.T, l *loopbench.Loop) { testManyConns(t, l, taskServer(t, l)) }},
		{"SlowReaderBackpressure", testSlowReader},
		{"PeerReset", testPeerReset},
		{"ServerCloseWithLiveConnections", testServerClose},
		{"CreateConnection", testCreateConnection},
		{"ConnectionRefused", testRefused},
		{"UnixSocket", testUnix},
		{"BufferedProtocolHalfClose", testBufferedHalfClose},
		{"AbortAndWriteAfterReset", testAbortAndWriteAfterReset},
		{"TaskClient", testTaskClient},
		{"UseAfterLoopClose", testUseAfterLoopClose},
		{"SockBlockingFd", testSockBlockingFd},
		{"SockFormsBulk", testSockFormsBulk},
		{"SockFormCancel", testSockFormCancel},
		{"SockFormOutsideTask", testSockFormOutsideTask},
	})
}

// startServer starts a server whose connections all get proto; it is
// closed at the end of the test.
func startServer(t *testing.T, l *loopbench.Loop, proto loopbench.BaseProtocol) *loopbench.Server {
	t.Helper()
	s, err := l.CreateServer("tcp", "127.0.0.1:0", func() loopbench.BaseProtocol { return proto })
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return s
}

func protocolServer(t *testing.T, l *loopbench.Loop) string {
	s, err := echo.ServeProtocol(l, "tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	return s.Addr().String()
}

func taskServer(t *testing.T, l *loopbench.Loop) string {
	s, err := echo.ServeTask(l, "tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return s.Addr().String()
}

// whileClient runs l until client, on its own goroutine, returns, and
// fails the test with the client's error.
func whileClient(t *testing.T, l *loopbench.Loop, client func() error) {
	t.Helper()
	done := l.CreateFuture()
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		err := client()
		l.CallSoonThreadsafe(func() { done.SetResult(err) })
	}()
	v, err := complete(t, l, done)
	<-finished // the client has deadlines; never leave it running
	if err != nil {
		t.Fatal(err)
	}
	if err, _ := v.(error); err != nil {
		t.Fatal(err)
	}
}

// echoAndClose dials addr, makes one round trip of msg and closes the
// connection: with a reset (SO_LINGER 0) if reset.
func echoAndClose(addr string, msg []byte, reset bool) error {
	c, err := net.Dial("tcp", addr)
	if err != nil {
		return err
	}
	if err := echoOnce(c, msg); err != nil {
		c.Close()
		return err
	}
	if reset {
		c.(*net.TCPConn).SetLinger(0)
	}
	return c.Close()
}

// echoOnce sends msg on c and reads the echo back.
func echoOnce(c net.Conn, msg []byte) error {
	c.SetDeadline(time.Now().Add(30 * time.Second))
	werr := make(chan error, 1)
	go func() { _, err := c.Write(msg); werr <- err }()
	got := make([]byte, len(msg))
	if _, err := io.ReadFull(c, got); err != nil {
		return err
	}
	if err := <-werr; err != nil {
		return err
	}
	if !bytes.Equal(got, msg) {
		return fmt.Errorf("echo of %d bytes differs", len(msg))
	}
	return nil
}

func pattern(n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(i*7 + i/251)
	}
	return b
}

func testEchoSizes(t *testing.T, l *loopbench.Loop, addr string) {
	whileClient(t, l, func() error {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			return err
		}
		defer c.Close()
		for _, n := range []int{1, 1 << 10, 64 << 10, 1 << 20} {
			if err := echoOnce(c, pattern(n)); err != nil {
				return fmt.Errorf("%d bytes: %w", n, err)
			}
		}
		return nil
	})
}

func testManyConns(t *testing.T, l *loopbench.Loop, addr string) {
	whileClient(t, l, func() error {
		var wg sync.WaitGroup
		errs := make(chan error, 100)
		for range 100 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				c, err := net.Dial("tcp", addr)
				if err != nil {
					errs <- err
					return
				}
				defer c.Close()
				msg := pattern(1 << 10)
				for range 10 {
					if err := echoOnce(c, msg); err != nil {
						errs <- err
						return
					}
				}
			}()
		}
		wg.Wait()
		close(errs)
		return <-errs
	})
}

// producer writes total bytes as fast as its transport's flow control
// lets it, then closes.
type producer struct {
	loopbench.ProtocolBase
	t               *loopbench.Transport
	total, sent     int
	paused          bool
	pauses, resumes int
	lost            chan error
	chunk           []byte
	maxBuffered     int
}

func (p *producer) ConnectionMade(t *loopbench.Transport) {
	p.t = t
	t.SetWriteBufferLimits(256<<10, 64<<10)
	p.produce()
}

func (p *producer) produce() {
	for !p.paused && p.sent < p.total {
		n := min(len(p.chunk), p.total-p.sent)
		p.t.Write(p.chunk[:n])
		p.sent += n
		p.maxBuffered = max(p.maxBuffered, p.t.WriteBufferSize())
	}
	if p.sent == p.total {
		p.t.Close()
	}
}

func (p *producer) PauseWriting()  { p.paused = true; p.pauses++ }
func (p *producer) ResumeWriting() { p.paused = false; p.resumes++; p.produce() }
func (p *producer) ConnectionLost(err error) {
	p.lost <- err
}

// testSlowReader: a client that waits before reading makes the server's
// write buffer fill; the protocol is paused above the high-water mark and
// resumed when the client drains it, and every byte arrives.
func testSlowReader(t *testing.T, l *loopbench.Loop) {
	const total = 16 << 20
	p := &producer{total: total, chunk: pattern(64 << 10), lost: make(chan error, 1)}
	s := startServer(t, l, p)
	whileClient(t, l, func() error {
		c, err := net.Dial("tcp", s.Addr().String())
		if err != nil {
			return err
		}
		defer c.Close()
		time.Sleep(50 * time.Millisecond) // the server fills its buffer meanwhile
		c.SetDeadline(time.Now().Add(30 * time.Second))
		n, err := io.Copy(io.Discard, c)
		if err != nil || n != total {
			return fmt.Errorf("read %d of %d bytes: %v", n, total, err)
		}
		return nil
	})
	if p.pauses == 0 || p.resumes == 0 || p.maxBuffered > 256<<10+64<<10 {
		t.Fatalf("pauses %d, resumes %d, max buffered %d: backpressure did not engage and release", p.pauses, p.resumes, p.maxBuffered)
	}
}

// recorder protocol for resets and closes.
type lostRecorder struct {
	loopbench.ProtocolBase
	t    *loopbench.Transport
	made chan *loopbench.Transport
	lost chan error
}

func (r *lostRecorder) ConnectionMade(t *loopbench.Transport) { r.t = t; r.made <- t }
func (r *lostRecorder) DataReceived(data []byte)              { r.t.Write(data) }
func (r *lostRecorder) ConnectionLost(err error)              { r.lost <- err }

func newLostRecorder() *lostRecorder {
	return &lostRecorder{made: make(chan *loopbench.Transport, 1), lost: make(chan error, 1)}
}

// testPeerReset: a client that resets its connection (SO_LINGER 0) makes
// ConnectionLost report ECONNRESET, as ErrConnectionLost too; nothing
// panics and the loop goes on.
func testPeerReset(t *testing.T, l *loopbench.Loop) {
	r := newLostRecorder()
	s := startServer(t, l, r)
	whileClient(t, l, func() error { return echoAndClose(s.Addr().String(), []byte("ping"), true) })
	got, err := complete(t, l, futureOf(l, r.lost))
	if lost, _ := got.(error); err != nil || !errors.Is(lost, syscall.ECONNRESET) || !errors.Is(lost, loopbench.ErrConnectionLost) {
		t.Fatalf("ConnectionLost(%v), want ECONNRESET and ErrConnectionLost", got)
	}
}

// futureOf returns a future completed with the value ch receives, read on
// the loop (the channel is filled by loop callbacks).
func futureOf[T any](l *loopbench.Loop, ch chan T) *loopbench.Future {
	f := l.CreateFuture()
	var poll func()
	poll = func() {
		select {
		case v := <-ch:
			f.SetResult(v)
		default:
			l.CallLater(time.Millisecond, poll)
		}
	}
	poll()
	return f
}

// testServerClose: Close stops listening while accepted connections go
// on; CloseClients closes them; WaitClosed completes once they are gone.
func testServerClose(t *testing.T, l *loopbench.Loop) {
	r := newLostRecorder()
	s := startServer(t, l, r)
	addr := s.Addr().String()
	conn := make(chan net.Conn, 1)
	whileClient(t, l, func() error {
		c, err := net.Dial("tcp", addr)
		if err == nil {
			conn <- c
			err = echoOnce(c, []byte("before"))
		}
		return err
	})
	c := <-conn
	defer c.Close()
	s.Close()
	closed := s.WaitClosed()
	if s.Connections() != 1 || closed.Done() {
		t.Fatalf("after Close: %d connections, WaitClosed done %v", s.Connections(), closed.Done())
	}
	whileClient(t, l, func() error {
		if c2, err := net.Dial("tcp", addr); err == nil {
			c2.Close()
			return errors.New("a closed server accepted a connection")
		}
		return echoOnce(c, []byte("still served"))
	})
	s.CloseClients()
	whileClient(t, l, func() error {
		c.SetDeadline(time.Now().Add(30 * time.Second))
		if n, err := c.Read(make([]byte, 1)); n != 0 || err != io.EOF {
			return fmt.Errorf("after CloseClients the client read %d, %v; want EOF", n, err)
		}
		return nil
	})
	if _, err := complete(t, l, closed); err != nil || s.Connections() != 0 {
		t.Fatalf("WaitClosed = %v with %d connections", err, s.Connections())
	}
}

// client is a protocol that sends msg, collects the echo and half-closes.
type client struct {
	loopbench.ProtocolBase
	msg  []byte
	got  []byte
	eof  bool
	lost *loopbench.Future
}

func (c *client) ConnectionMade(t *loopbench.Transport) {
	t.Write(c.msg)
	t.WriteEOF()
}
func (c *client) DataReceived(data []byte) { c.got = append(c.got, data...) }
func (c *client) EOFReceived() bool        { c.eof = true; return false }
func (c *client) ConnectionLost(err error) { c.lost.SetResult(err) }

// testCreateConnection: a loop client connects to the gonet server,
// writes, half-closes, and gets the echo and the server's EOF.
func testCreateConnection(t *testing.T, l *loopbench.Loop) {
	g, err := echo.ServeGonet("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	c := &client{msg: pattern(200 << 10), lost: l.CreateFuture()}
	v, err := complete(t, l, l.CreateConnection("tcp", g.Addr().String(), func() loopbench.BaseProtocol { return c }))
	if err != nil {
		t.Fatal(err)
	}
	tr := v.(*loopbench.Transport)
	if tr.PeerAddr().String() != g.Addr().String() || tr.LocalAddr() == nil {
		t.Fatalf("addresses: peer %v local %v", tr.PeerAddr(), tr.LocalAddr())
	}
	if lost, err := complete(t, l, c.lost); lost != nil || err != nil {
		t.Fatalf("ConnectionLost(%v)", lost)
	}
	if !c.eof || !bytes.Equal(c.got, c.msg) {
		t.Fatalf("got %d of %d bytes, eof %v", len(c.got), len(c.msg), c.eof)
	}
}

func testRefused(t *testing.T, l *loopbench.Loop) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	_, err = complete(t, l, l.CreateConnection("tcp", addr, func() loopbench.BaseProtocol { return newLostRecorder() }))
	if !errors.Is(err, syscall.ECONNREFUSED) {
		t.Fatalf("connecting to a closed port: %v, want ECONNREFUSED", err)
	}
	_, err = complete(t, l, l.CreateConnection("tcp", "localhost:80", func() loopbench.BaseProtocol { return newLostRecorder() }))
	if err == nil {
		t.Fatal("a host name was accepted (only literal addresses are)")
	}
}

func testUnix(t *testing.T, l *loopbench.Loop) {
	path := t.TempDir() + "/echo.sock"
	s, err := echo.ServeProtocol(l, "unix", path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	whileClient(t, l, func() error {
		c, err := net.Dial("unix", path)
		if err != nil {
			return err
		}
		defer c.Close()
		return echoOnce(c, pattern(100<<10))
	})
}
