package looptest

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"io"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/loopbench/loopbench"
)

// shortTimeout is the TLS timeout of the tests that wait for one: the
// peer in them never moves, so its length decides nothing but how long
// the test takes.
const shortTimeout = 50 * time.Millisecond

// runTLSErrors runs the TLS error cases on cfg. Each error reaches
// ConnectionLost wrapped (errors.As finds crypto/tls's or x509's), and
// the loop goes on: every case ends with a good handshake on the same
// loop.
func runTLSErrors(t *testing.T, cfg loopbench.Config) {
	cases := []loopTest{
		{"UnknownAuthority", testTLSUnknownAuthority},
		{"WrongHostName", testTLSWrongHost},
		{"GarbageClientHello", testTLSGarbage},
		{"ServerStallsHandshake", testTLSClientTimeout},
		// A handshake record header announcing 512 bytes, and 3 of them.
		{"ClientStallsHandshake", func(t *testing.T, l *loopbench.Loop) { testTLSServerTimeout(t, l, []byte{22, 3, 1, 2, 0, 1, 0, 1}) }},
		{"SilentClient", func(t *testing.T, l *loopbench.Loop) { testTLSServerTimeout(t, l, nil) }},
		{"NoCloseNotify", testTLSNoCloseNotify},
		{"ShutdownTimeout", testTLSShutdownTimeout},
		{"CloseDuringHandshake", testTLSCloseDuringHandshake},
		{"PanicInCallback", testTLSCallbackPanic},
	}
	for i := range cases {
		fn := cases[i].fn
		cases[i].fn = func(t *testing.T, l *loopbench.Loop) {
			fn(t, l)
			if t.Failed() {
				return
			}
			f := certs(t)
			s, _ := tlsServer(t, l, true, loopbench.WithTLS(f.serverConfig(0)))
			if _, err := tlsConnect(t, l, s.Addr().String(), false, loopbench.WithTLS(f.clientConfig(0)), loopbench.WithServerName("localhost")); err != nil {
				t.Fatalf("a good handshake after the error: %v", err)
			}
		}
	}
	t.Run("Errors", func(t *testing.T) { runEach(t, cfg, cases) })
}

// testTLSUnknownAuthority: a certificate from an authority the client
// does not trust fails the client's handshake with x509's error; the
// server gets the client's bad-certificate alert.
func testTLSUnknownAuthority(t *testing.T, l *loopbench.Loop) {
	f := certs(t)
	scfg := &tls.Config{Certificates: []tls.Certificate{f.rogue}}
	s, protos := tlsServer(t, l, true, loopbench.WithTLS(scfg))
	p, err := tlsConnect(t, l, s.Addr().String(), false, loopbench.WithTLS(f.clientConfig(0)), loopbench.WithServerName("localhost"))
	var unknown x509.UnknownAuthorityError
	if !errors.As(err, &unknown) {
		t.Fatalf("client's future: %v, want x509.UnknownAuthorityError", err)
	}
	if lost := p.lostErr(t, l); !errors.As(lost, &unknown) || p.t != nil {
		t.Fatalf("client's ConnectionLost(%v), made %v: want the same error, no ConnectionMade", lost, p.t != nil)
	}
	if lost := (*protos)[0].lostErr(t, l); !isRemoteAlert(lost) {
		t.Fatalf("server's ConnectionLost(%v), want the client's alert", lost)
	}
}

// isRemoteAlert reports whether err carries a TLS alert from the peer
// (crypto/tls's "remote error").
func isRemoteAlert(err error) bool {
	var op *net.OpError
	return errors.As(err, &op) && op.Op == "remote error"
}

// testTLSWrongHostName: a certificate for another name fails with
// x509.HostnameError.
func testTLSWrongHost(t *testing.T, l *loopbench.Loop) {
	f := certs(t)
	s, _ := tlsServer(t, l, true, loopbench.WithTLS(f.serverConfig(0)))
	p, err := tlsConnect(t, l, s.Addr().String(), false, loopbench.WithTLS(f.clientConfig(0)), loopbench.WithServerName("elsewhere.test"))
	var host x509.HostnameError
	if !errors.As(err, &host) {
		t.Fatalf("future: %v, want x509.HostnameError", err)
	}
	if lost := p.lostErr(t, l); !errors.As(lost, &host) {
		t.Fatalf("ConnectionLost(%v), want x509.HostnameError", lost)
	}
}

// testTLSGarbage: plain text where a ClientHello belongs fails the
// server's handshake with tls.RecordHeaderError, and the client's
// connection is closed.
func testTLSGarbage(t *testing.T, l *loopbench.Loop) {
	f := certs(t)
	s, protos := tlsServer(t, l, true, loopbench.WithTLS(f.serverConfig(0)))
	whileClient(t, l, func() error {
		return expectClosed(s.Addr().String(), []byte("GET / HTTP/1.1\r\nHost: localhost\r\n\r\n"))
	})
	var rec tls.RecordHeaderError
	if lost := (*protos)[0].lostErr(t, l); !errors.As(lost, &rec) {
		t.Fatalf("ConnectionLost(%v), want tls.RecordHeaderError", lost)
	}
}

// stallingPeer listens and, for each connection, reads what comes and
// never answers, until the test ends; heard receives one value per
// connection, once its first bytes came.
func stallingPeer(t *testing.T) (ln net.Listener, heard chan struct{}) {
	ln, heard, stop, err := newStallingPeer()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(stop)
	return ln, heard
}

// newStallingPeer is stallingPeer with its stop function, which closes
// the listener and the connections and waits for its goroutines.
func newStallingPeer() (ln net.Listener, heard chan struct{}, stop func(), err error) {
	ln, err = net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, nil, nil, err
	}
	heard = make(chan struct{}, 16)
	var wg sync.WaitGroup
	var mu sync.Mutex
	var conns []net.Conn
	wg.Add(1)
	go func() {
		defer wg.Done()
		for c, err := ln.Accept(); err == nil; c, err = ln.Accept() {
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
			wg.Add(1)
			go func() {
				defer wg.Done()
				if _, err := c.Read(make([]byte, 1)); err == nil {
					heard <- struct{}{}
				}
				io.Copy(io.Discard, c)
			}()
		}
	}()
	stop = func() {
		ln.Close()
		mu.Lock()
		for _, c := range conns {
			c.Close()
		}
		mu.Unlock()
		wg.Wait()
	}
	return ln, heard, stop, nil
}

// testTLSClientTimeout: a server that never answers the ClientHello fails
// the client's handshake with ErrTimeout, at the handshake timeout.
func testTLSClientTimeout(t *testing.T, l *loopbench.Loop) {
	f := certs(t)
	ln, _ := stallingPeer(t)
	p, err := tlsConnect(t, l, ln.Addr().String(), false, loopbench.WithTLS(f.clientConfig(0)),
		loopbench.WithServerName("localhost"), loopbench.WithHandshakeTimeout(shortTimeout))
	if !errors.Is(err, loopbench.ErrTimeout) {
		t.Fatalf("future: %v, want ErrTimeout", err)
	}
	if lost := p.lostErr(t, l); !errors.Is(lost, loopbench.ErrTimeout) {
		t.Fatalf("ConnectionLost(%v), want ErrTimeout", lost)
	}
}

// testTLSServerTimeout: a client that stops half-way through its
// ClientHello (send), or sends nothing at all (no helper goroutine ever
// starts for it), fails the server's handshake with ErrTimeout.
func testTLSServerTimeout(t *testing.T, l *loopbench.Loop, send []byte) {
	f := certs(t)
	s, protos := tlsServer(t, l, true, loopbench.WithTLS(f.serverConfig(0)), loopbench.WithHandshakeTimeout(shortTimeout))
	whileClient(t, l, func() error { return expectClosed(s.Addr().String(), send) })
	if lost := (*protos)[0].lostErr(t, l); !errors.Is(lost, loopbench.ErrTimeout) {
		t.Fatalf("ConnectionLost(%v), want ErrTimeout", lost)
	}
}

// testTLSNoCloseNotify: a peer that closes its socket without
// close_notify ends the connection with ErrTLSTruncated (which wraps
// io.ErrUnexpectedEOF), after the data it sent.
func testTLSNoCloseNotify(t *testing.T, l *loopbench.Loop) {
	f := certs(t)
	s, protos := tlsServer(t, l, false, loopbench.WithTLS(f.serverConfig(0)))
	whileClient(t, l, func() error {
		raw, err := net.Dial("tcp", s.Addr().String())
		if err != nil {
			return err
		}
		ccfg := f.clientConfig(0)
		ccfg.ServerName = "localhost"
		c := tls.Client(raw, ccfg)
		c.SetDeadline(time.Now().Add(30 * time.Second))
		if _, err := c.Write([]byte("last words")); err != nil {
			raw.Close()
			return err
		}
		return raw.Close() // not c.Close: no close_notify
	})
	p := (*protos)[0]
	lost := p.lostErr(t, l)
	if !errors.Is(lost, loopbench.ErrTLSTruncated) || !errors.Is(lost, io.ErrUnexpectedEOF) || string(p.got) != "last words" {
		t.Fatalf("ConnectionLost(%v) after %q, want ErrTLSTruncated after the data", lost, p.got)
	}
}

// testTLSShutdownTimeout: Close waits for the peer's close_notify; a
// peer that neither sends it nor closes makes Close end with ErrTimeout.
func testTLSShutdownTimeout(t *testing.T, l *loopbench.Loop) {
	f := certs(t)
	s, protos := tlsServer(t, l, false, loopbench.WithTLS(f.serverConfig(0)), loopbench.WithShutdownTimeout(shortTimeout))
	release := make(chan struct{})
	clientDone := make(chan error, 1)
	go func() {
		c, err := tls.Dial("tcp", s.Addr().String(), f.clientConfig(0))
		if err == nil {
			_, err = c.Write([]byte("x")) // the server's handshake completes
			<-release
			c.Close()
		}
		clientDone <- err
	}()
	waitFor(t, l, func() bool { return len(*protos) == 1 && len((*protos)[0].got) > 0 })
	(*protos)[0].t.Close()
	lost := (*protos)[0].lostErr(t, l)
	close(release)
	if err := <-clientDone; err != nil {
		t.Fatal(err)
	}
	if !errors.Is(lost, loopbench.ErrTimeout) {
		t.Fatalf("ConnectionLost(%v), want ErrTimeout", lost)
	}
}

// testTLSCloseDuringHandshake: closing during the handshake aborts it, as
// asyncio's does: a cancelled CreateConnection's protocol, and a server
// connection closed by CloseClients, get ConnectionLost(nil) and never
// ConnectionMade.
func testTLSCloseDuringHandshake(t *testing.T, l *loopbench.Loop) {
	f := certs(t)
	ln, heard := stallingPeer(t)
	p := newTLSProto(l, false)
	fut := l.CreateConnection("tcp", ln.Addr().String(), func() loopbench.BaseProtocol { return p },
		loopbench.WithTLS(f.clientConfig(0)), loopbench.WithServerName("localhost"))
	if _, err := complete(t, l, futureOf(l, heard)); err != nil { // the ClientHello
		t.Fatal(err)
	}
	fut.Cancel("not waiting")
	if _, err := complete(t, l, fut); !errors.Is(err, loopbench.ErrCancelled) {
		t.Fatalf("cancelled future: %v", err)
	}
	if lost := p.lostErr(t, l); lost != nil || p.t != nil {
		t.Fatalf("client: ConnectionLost(%v), made %v; want nil, no ConnectionMade", lost, p.t != nil)
	}
	s, protos := tlsServer(t, l, true, loopbench.WithTLS(f.serverConfig(0)))
	var poll func()
	poll = func() {
		if s.Connections() == 1 {
			s.CloseClients()
			return
		}
		l.CallLater(time.Millisecond, poll)
	}
	l.CallSoon(poll)
	whileClient(t, l, func() error { return expectClosed(s.Addr().String(), []byte{22, 3, 1, 2, 0, 1}) })
	if lost := (*protos)[0].lostErr(t, l); lost != nil || (*protos)[0].t != nil {
		t.Fatalf("server: ConnectionLost(%v), made %v; want nil, no ConnectionMade", lost, (*protos)[0].t != nil)
	}
}

// testTLSCallbackPanic: a panic in a config callback, which runs in the
// handshake's helper goroutine, fails that handshake and nothing else.
func testTLSCallbackPanic(t *testing.T, l *loopbench.Loop) {
	f := certs(t)
	scfg := &tls.Config{GetCertificate: func(*tls.ClientHelloInfo) (*tls.Certificate, error) { panic("no certificate today") }}
	s, protos := tlsServer(t, l, true, loopbench.WithTLS(scfg))
	if _, err := tlsConnect(t, l, s.Addr().String(), false, loopbench.WithTLS(f.clientConfig(0)), loopbench.WithServerName("localhost")); err == nil {
		t.Fatal("the handshake succeeded")
	}
	if lost := (*protos)[0].lostErr(t, l); lost == nil {
		t.Fatal("server's ConnectionLost(nil), want the panic")
	}
}
