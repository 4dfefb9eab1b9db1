package looptest

import (
	"bytes"
	"crypto/tls"
	"fmt"
	"io"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/loopbench/loopbench"
	"github.com/loopbench/loopbench/internal/measure/tlscert"
)

// RunTLS runs the TLS suite on cfg: servers and clients on the loop
// against crypto/tls and against each other, TLS 1.2 and 1.3, ALPN,
// client certificates, SNI, every error case and StartTLS (RunTLSFlow has
// the flow control).
func RunTLS(t *testing.T, cfg loopbench.Config) {
	runEach(t, cfg, []loopTest{
		{"ServerTLS13", func(t *testing.T, l *loopbench.Loop) { testTLSServer(t, l, tls.VersionTLS13) }},
		{"ServerTLS12", func(t *testing.T, l *loopbench.Loop) { testTLSServer(t, l, tls.VersionTLS12) }},
		{"ClientTLS13", func(t *testing.T, l *loopbench.Loop) { testTLSClient(t, l, tls.VersionTLS13) }},
		{"ClientTLS12", func(t *testing.T, l *loopbench.Loop) { testTLSClient(t, l, tls.VersionTLS12) }},
		{"ServerNameFromAddress", testTLSServerNameFromAddress},
		{"ALPN", testTLSALPN},
		{"ClientCertificate", testTLSClientCert},
		{"ClientCertificateMissing", testTLSClientCertMissing},
		{"SNI", testTLSSNI},
		{"BufferedProtocol", testTLSBuffered},
		{"HalfClose", testTLSHalfClose},
		{"StreamsOverTLS", testTLSStreams},
		{"StartTLSOnStream", testStartTLSStream},
		{"OptionsNeedTLS", testTLSOptionErrors},
		{"HandshakeWorkersBound", testTLSWorkerBound},
	})
	runTLSErrors(t, cfg)
}

// tlsFixture holds the certificates of the TLS tests: a CA, a server
// certificate for localhost, a client certificate, two SNI names, and a
// certificate from an authority nobody trusts.
type tlsFixture struct {
	ca, otherCA                 *tlscert.CA
	server, client, a, b, rogue tls.Certificate
}

var (
	fixtureOnce sync.Once
	fixture     *tlsFixture
	fixtureErr  error
)

// certs returns the fixture, made once per process.
func certs(tb testing.TB) *tlsFixture {
	fixtureOnce.Do(func() { fixture, fixtureErr = newFixture() })
	if fixtureErr != nil {
		tb.Fatal(fixtureErr)
	}
	return fixture
}

func newFixture() (*tlsFixture, error) {
	f := &tlsFixture{}
	var err error
	if f.ca, err = tlscert.NewCA("loopbench test CA"); err != nil {
		return nil, err
	}
	if f.otherCA, err = tlscert.NewCA("untrusted CA"); err != nil {
		return nil, err
	}
	for _, c := range []struct {
		dst   *tls.Certificate
		ca    *tlscert.CA
		hosts []string
	}{
		{&f.server, f.ca, []string{"localhost", "127.0.0.1"}},
		{&f.client, f.ca, []string{"client.test"}},
		{&f.a, f.ca, []string{"a.test"}},
		{&f.b, f.ca, []string{"b.test"}},
		{&f.rogue, f.otherCA, []string{"localhost", "127.0.0.1"}},
	} {
		if *c.dst, err = c.ca.Issue(c.hosts...); err != nil {
			return nil, err
		}
	}
	return f, nil
}

// serverConfig is a server's config with the localhost certificate, at
// most version max (0: crypto/tls's default).
func (f *tlsFixture) serverConfig(max uint16) *tls.Config {
	return &tls.Config{Certificates: []tls.Certificate{f.server}, MaxVersion: max}
}

// clientConfig trusts the fixture's CA.
func (f *tlsFixture) clientConfig(max uint16) *tls.Config {
	return &tls.Config{RootCAs: f.ca.Pool, MaxVersion: max}
}

// tlsProto is a protocol that records what TLS gave it and, if echo,
// echoes; made and lost are completed by ConnectionMade and
// ConnectionLost.
type tlsProto struct {
	t        *loopbench.Transport
	echo     bool
	state    tls.ConnectionState
	stateOK  bool
	got      []byte
	eofs     int
	made     *loopbench.Future
	lost     *loopbench.Future
	pauses   int
	keepOpen bool
}

func newTLSProto(l *loopbench.Loop, echo bool) *tlsProto {
	return &tlsProto{echo: echo, made: l.CreateFuture(), lost: l.CreateFuture()}
}

func (p *tlsProto) ConnectionMade(t *loopbench.Transport) {
	p.t = t
	p.state, p.stateOK = t.TLSConnectionState()
	p.made.SetResult(t)
}

func (p *tlsProto) DataReceived(data []byte) {
	if p.echo {
		p.t.Write(data)
		return
	}
	p.got = append(p.got, data...)
}

func (p *tlsProto) EOFReceived() bool { p.eofs++; return p.keepOpen }
func (p *tlsProto) PauseWriting()     { p.pauses++ }
func (p *tlsProto) ResumeWriting()    {}

// ConnectionLost completes lost with the error as its result.
func (p *tlsProto) ConnectionLost(err error) {
	if !p.lost.Done() {
		p.lost.SetResult(err)
	}
}

// lostErr waits for ConnectionLost and returns its error.
func (p *tlsProto) lostErr(t *testing.T, l *loopbench.Loop) error {
	t.Helper()
	v, err := complete(t, l, p.lost)
	if err != nil {
		t.Fatal(err)
	}
	lost, _ := v.(error)
	return lost
}

// tlsServer starts a TLS server on l whose connections get protocols
// from newTLSProto (collected in the returned slice's pointer); it is
// closed at the end of the test.
func tlsServer(t *testing.T, l *loopbench.Loop, echo bool, opts ...loopbench.NetOption) (*loopbench.Server, *[]*tlsProto) {
	t.Helper()
	var protos []*tlsProto
	s, err := l.CreateServer("tcp", "127.0.0.1:0", func() loopbench.BaseProtocol {
		p := newTLSProto(l, echo)
		protos = append(protos, p)
		return p
	}, opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return s, &protos
}

// tlsConnect connects a loop TLS client with cfg to addr and returns its
// protocol and the future's error.
func tlsConnect(t *testing.T, l *loopbench.Loop, addr string, echo bool, opts ...loopbench.NetOption) (*tlsProto, error) {
	t.Helper()
	p := newTLSProto(l, echo)
	_, err := complete(t, l, l.CreateConnection("tcp", addr, func() loopbench.BaseProtocol { return p }, opts...))
	return p, err
}

// goTLSEcho dials addr with crypto/tls and checks echoes of sizes.
func goTLSEcho(addr string, cfg *tls.Config, sizes ...int) (tls.ConnectionState, error) {
	c, err := tls.Dial("tcp", addr, cfg)
	if err != nil {
		return tls.ConnectionState{}, err
	}
	defer c.Close()
	for _, n := range sizes {
		if err := echoOnce(c, pattern(n)); err != nil {
			return c.ConnectionState(), fmt.Errorf("%d bytes: %w", n, err)
		}
	}
	return c.ConnectionState(), nil
}

// testTLSServer: crypto/tls clients echo through a loop TLS server at
// version v; both sides see it negotiated, and a client's close_notify
// ends the connection cleanly.
func testTLSServer(t *testing.T, l *loopbench.Loop, v uint16) {
	f := certs(t)
	s, protos := tlsServer(t, l, true, loopbench.WithTLS(f.serverConfig(v)))
	var st tls.ConnectionState
	whileClient(t, l, func() (err error) {
		st, err = goTLSEcho(s.Addr().String(), f.clientConfig(v), 1, 1<<10, 64<<10, 1<<20)
		return err
	})
	if st.Version != v {
		t.Fatalf("client negotiated %s, want %s", tls.VersionName(st.Version), tls.VersionName(v))
	}
	p := (*protos)[0]
	if err := p.lostErr(t, l); err != nil || !p.stateOK || p.state.Version != v || p.eofs != 1 {
		t.Fatalf("server: ConnectionLost(%v), state %v version %s, %d EOFs; want nil, %s, 1", err, p.stateOK, tls.VersionName(p.state.Version), p.eofs, tls.VersionName(v))
	}
}

// goTLSServer is a crypto/tls echo server on its own goroutine; it
// records the state of each connection's handshake.
type goTLSServer struct {
	ln     net.Listener
	wg     sync.WaitGroup
	states chan tls.ConnectionState
	errs   chan error
}

func newGoTLSServer(t *testing.T, cfg *tls.Config) *goTLSServer {
	ln, err := tls.Listen("tcp", "127.0.0.1:0", cfg)
	if err != nil {
		t.Fatal(err)
	}
	g := &goTLSServer{ln: ln, states: make(chan tls.ConnectionState, 16), errs: make(chan error, 16)}
	g.wg.Add(1)
	go func() {
		defer g.wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			g.wg.Add(1)
			go g.serve(c.(*tls.Conn))
		}
	}()
	t.Cleanup(func() { ln.Close(); g.wg.Wait() })
	return g
}

func (g *goTLSServer) serve(c *tls.Conn) {
	defer g.wg.Done()
	defer c.Close()
	c.SetDeadline(time.Now().Add(30 * time.Second))
	if err := c.Handshake(); err != nil {
		g.errs <- err
		return
	}
	g.states <- c.ConnectionState()
	io.Copy(c, c)
}

// testTLSClient: a loop TLS client echoes through a crypto/tls server at
// version v and reads the negotiated state from its transport.
func testTLSClient(t *testing.T, l *loopbench.Loop, v uint16) {
	f := certs(t)
	g := newGoTLSServer(t, f.serverConfig(v))
	p, err := tlsConnect(t, l, g.ln.Addr().String(), false, loopbench.WithTLS(f.clientConfig(v)), loopbench.WithServerName("localhost"))
	if err != nil {
		t.Fatal(err)
	}
	st := p.state
	if !p.stateOK || st.Version != v || st.CipherSuite == 0 || st.ServerName != "localhost" || len(st.PeerCertificates) == 0 || st.PeerCertificates[0].Subject.CommonName != "localhost" {
		t.Fatalf("client state: ok %v, %s, suite %x, name %q, %d peer certificates", p.stateOK, tls.VersionName(st.Version), st.CipherSuite, st.ServerName, len(st.PeerCertificates))
	}
	msg := pattern(100 << 10)
	p.t.Write(msg)
	waitFor(t, l, func() bool { return len(p.got) >= len(msg) })
	if !bytes.Equal(p.got, msg) {
		t.Fatalf("echo of %d bytes came back as %d different bytes", len(msg), len(p.got))
	}
	p.t.Close()
	if err := p.lostErr(t, l); err != nil {
		t.Fatalf("ConnectionLost(%v) after Close, want nil", err)
	}
}

// waitFor runs l until cond holds.
func waitFor(t *testing.T, l *loopbench.Loop, cond func() bool) {
	t.Helper()
	done := l.CreateFuture()
	var poll func()
	poll = func() {
		if cond() {
			done.SetResult(nil)
			return
		}
		l.CallLater(time.Millisecond, poll)
	}
	poll()
	if _, err := complete(t, l, done); err != nil {
		t.Fatal(err)
	}
}

// testTLSServerNameFromAddress: without WithServerName or a ServerName in
// the config, the client checks the certificate against the host it
// dialled.
func testTLSServerNameFromAddress(t *testing.T, l *loopbench.Loop) {
	f := certs(t)
	s, _ := tlsServer(t, l, true, loopbench.WithTLS(f.serverConfig(0)))
	_, port, _ := net.SplitHostPort(s.Addr().String())
	p, err := tlsConnect(t, l, net.JoinHostPort("localhost", port), false, loopbench.WithTLS(f.clientConfig(0)))
	if err != nil || p.state.ServerName != "localhost" {
		t.Fatalf("dialling localhost: %v, server name %q", err, p.state.ServerName)
	}
}

// testTLSALPN: both loop sides negotiate the protocol they share.
func testTLSALPN(t *testing.T, l *loopbench.Loop) {
	f := certs(t)
	scfg := f.serverConfig(0)
	scfg.NextProtos = []string{"h2", "http/1.1"}
	s, protos := tlsServer(t, l, true, loopbench.WithTLS(scfg))
	ccfg := f.clientConfig(0)
	ccfg.NextProtos = []string{"x-none", "http/1.1"}
	p, err := tlsConnect(t, l, s.Addr().String(), false, loopbench.WithTLS(ccfg), loopbench.WithServerName("localhost"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := complete(t, l, (*protos)[0].made); err != nil {
		t.Fatal(err)
	}
	if c, sv := p.state.NegotiatedProtocol, (*protos)[0].state.NegotiatedProtocol; c != "http/1.1" || sv != "http/1.1" {
		t.Fatalf("ALPN: client %q, server %q; want http/1.1 both", c, sv)
	}
}

// testTLSClientCert: a server that requires client certificates sees the
// loop client's.
func testTLSClientCert(t *testing.T, l *loopbench.Loop) {
	f := certs(t)
	scfg := f.serverConfig(0)
	scfg.ClientAuth, scfg.ClientCAs = tls.RequireAndVerifyClientCert, f.ca.Pool
	s, protos := tlsServer(t, l, true, loopbench.WithTLS(scfg))
	ccfg := f.clientConfig(0)
	ccfg.Certificates = []tls.Certificate{f.client}
	if _, err := tlsConnect(t, l, s.Addr().String(), false, loopbench.WithTLS(ccfg), loopbench.WithServerName("localhost")); err != nil {
		t.Fatal(err)
	}
	sp := (*protos)[0]
	if _, err := complete(t, l, sp.made); err != nil {
		t.Fatal(err)
	}
	if certs := sp.state.PeerCertificates; len(certs) == 0 || certs[0].Subject.CommonName != "client.test" {
		t.Fatalf("the server saw %d client certificates, want client.test's", len(certs))
	}
}

// testTLSClientCertMissing: a client without the required certificate is
// refused: the server's ConnectionLost says why, and the client's
// connection ends with the server's alert.
func testTLSClientCertMissing(t *testing.T, l *loopbench.Loop) {
	f := certs(t)
	scfg := f.serverConfig(0)
	scfg.ClientAuth, scfg.ClientCAs = tls.RequireAndVerifyClientCert, f.ca.Pool
	s, protos := tlsServer(t, l, true, loopbench.WithTLS(scfg))
	p, err := tlsConnect(t, l, s.Addr().String(), false, loopbench.WithTLS(f.clientConfig(0)), loopbench.WithServerName("localhost"))
	if err == nil { // TLS 1.3: the client's handshake ends first; the alert follows
		err = p.lostErr(t, l)
	}
	if !isRemoteAlert(err) {
		t.Fatalf("client: %v, want the server's TLS alert", err)
	}
	if serr := (*protos)[0].lostErr(t, l); serr == nil || (*protos)[0].t != nil {
		t.Fatalf("server: ConnectionLost(%v) (made: %v), want the handshake's error and no ConnectionMade", serr, (*protos)[0].t != nil)
	}
}

// testTLSSNI: the server picks its certificate by the name the client
// sends; each client verifies the one it asked for.
func testTLSSNI(t *testing.T, l *loopbench.Loop) {
	f := certs(t)
	scfg := &tls.Config{GetCertificate: func(h *tls.ClientHelloInfo) (*tls.Certificate, error) {
		switch h.ServerName {
		case "a.test":
			return &f.a, nil
		case "b.test":
			return &f.b, nil
		}
		return nil, fmt.Errorf("no certificate for %q", h.ServerName)
	}}
	s, protos := tlsServer(t, l, true, loopbench.WithTLS(scfg))
	for i, name := range []string{"a.test", "b.test"} {
		p, err := tlsConnect(t, l, s.Addr().String(), false, loopbench.WithTLS(f.clientConfig(0)), loopbench.WithServerName(name))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		sp := (*protos)[i]
		if _, err := complete(t, l, sp.made); err != nil {
			t.Fatal(err)
		}
		if cn := p.state.PeerCertificates[0].Subject.CommonName; cn != name || sp.state.ServerName != name {
			t.Fatalf("asked for %s: got %s's certificate, the server saw %q", name, cn, sp.state.ServerName)
		}
	}
}

// testTLSOptionErrors: TLS options without WithTLS, and a server name on
// a server, are errors.
func testTLSOptionErrors(t *testing.T, l *loopbench.Loop) {
	f := certs(t)
	noop := func() loopbench.BaseProtocol { return &loopbench.ProtocolBase{} }
	if _, err := l.CreateServer("tcp", "127.0.0.1:0", noop, loopbench.WithHandshakeTimeout(time.Second)); err == nil {
		t.Fatal("CreateServer with a handshake timeout and no TLS: no error")
	}
	if _, err := l.CreateServer("tcp", "127.0.0.1:0", noop, loopbench.WithTLS(f.serverConfig(0)), loopbench.WithServerName("x")); err == nil {
		t.Fatal("CreateServer with a server name: no error")
	}
	if _, err := complete(t, l, l.CreateConnection("tcp", "127.0.0.1:1", noop, loopbench.WithServerName("x"))); err == nil {
		t.Fatal("CreateConnection with a server name and no TLS: no error")
	}
}
