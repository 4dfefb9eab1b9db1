package looptest

import (
	"crypto/tls"
	"net"
	"runtime"
	"sync/atomic"
	"testing"

	"github.com/loopbench/loopbench"
)

// testTLSWorkerBound: with SetTLSHandshakeWorkers(2), six clients'
// handshakes run two at a time on the server's side, the others waiting
// their turn, and all complete.
func testTLSWorkerBound(t *testing.T, l *loopbench.Loop) {
	f := certs(t)
	if err := l.SetTLSHandshakeWorkers(2); err != nil {
		t.Fatal(err)
	}
	if err := l.SetTLSHandshakeWorkers(0); err == nil {
		t.Fatal("SetTLSHandshakeWorkers(0): no error")
	}
	var active, most atomic.Int32
	gate := make(chan struct{})
	scfg := f.serverConfig(0)
	scfg.GetConfigForClient = func(*tls.ClientHelloInfo) (*tls.Config, error) {
		n := active.Add(1)
		for m := most.Load(); n > m && !most.CompareAndSwap(m, n); m = most.Load() {
		}
		<-gate
		active.Add(-1)
		return nil, nil
	}
	s, _ := tlsServer(t, l, true, loopbench.WithTLS(scfg))
	const clients = 6
	errs := make(chan error, clients)
	for range clients {
		go func() {
			_, err := goTLSEcho(s.Addr().String(), f.clientConfig(0), 10)
			errs <- err
		}()
	}
	released := false
	t.Cleanup(func() {
		if !released {
			close(gate)
		}
	})
	waitFor(t, l, func() bool { r, w := l.TLSHandshakes(); return r == 2 && w == clients-2 && active.Load() == 2 })
	released = true
	whileClient(t, l, func() error {
		for range clients {
			gate <- struct{}{}
		}
		for range clients {
			if err := <-errs; err != nil {
				return err
			}
		}
		return nil
	})
	if m := most.Load(); m != 2 {
		t.Fatalf("%d handshakes ran at once, want 2", m)
	}
	waitFor(t, l, func() bool { r, w := l.TLSHandshakes(); return r == 0 && w == 0 })
}

// TLSLeavesNothing opens TLS connections between a loop's server and its
// own clients and checks that, once the handshakes are done, they hold no
// goroutine (logging the count per idle connection, 0); then it runs the
// error cases, leaves a handshake stalled and connections open, closes
// the loop, and checks that no fd or goroutine is left. It counts
// process-wide, so it must not run in parallel.
func TLSLeavesNothing(t *testing.T, cfg loopbench.Config) {
	f := certs(t)
	if ln, err := net.Listen("tcp", "127.0.0.1:0"); err == nil { // the runtime's poller, for good
		ln.Close()
	}
	before := holding(t)
	gs := before.gs
	peer, heard, stopPeer, err := newStallingPeer()
	if err != nil {
		t.Fatal(err)
	}
	func() {
		l := New(t, cfg)
		defer l.Close()
		s, protos := tlsServer(t, l, true, loopbench.WithTLS(f.serverConfig(0)))
		const idle = 20
		for i := range idle {
			if _, err := tlsConnect(t, l, s.Addr().String(), false, loopbench.WithTLS(f.clientConfig(0)), loopbench.WithServerName("localhost")); err != nil {
				t.Fatalf("connection %d: %v", i, err)
			}
		}
		waitFor(t, l, func() bool {
			made := 0
			for _, p := range *protos {
				if p.made.Done() {
					made++
				}
			}
			return made == idle
		})
		if r, w := l.TLSHandshakes(); r != 0 || w != 0 {
			t.Fatalf("%d handshakes running and %d waiting after all completed", r, w)
		}
		var g int
		settle(func() bool { g = runtime.NumGoroutine(); return g <= gs+1 }) // +1: the stalling peer's accept
		t.Logf("goroutines per idle TLS connection: %d (%d connections, both ends on the loop)", (g-gs-1)/idle, 2*idle)
		if g > gs+1 {
			t.Fatalf("%d goroutines more with %d idle TLS connections open, want none", g-gs-1, 2*idle)
		}
		leakCases(t, l, s, peer.Addr().String(), heard)
	}()
	stopPeer()
	before.leftNothing(t, "after Close")
}

// leakCases runs the errors that leave the most behind: a bad
// certificate, garbage, a handshake timeout, and a client handshake left
// stalled for the loop's Close to end.
func leakCases(t *testing.T, l *loopbench.Loop, s *loopbench.Server, stalling string, heard chan struct{}) {
	f := certs(t)
	if _, err := tlsConnect(t, l, s.Addr().String(), false, loopbench.WithTLS(f.clientConfig(0)), loopbench.WithServerName("wrong.test")); err == nil {
		t.Fatal("a wrong host name was accepted")
	}
	whileClient(t, l, func() error { return expectClosed(s.Addr().String(), []byte("not a ClientHello\r\n")) })
	if _, err := tlsConnect(t, l, stalling, false, loopbench.WithTLS(f.clientConfig(0)),
		loopbench.WithServerName("localhost"), loopbench.WithHandshakeTimeout(shortTimeout)); err == nil {
		t.Fatal("a handshake with a silent server succeeded")
	}
	l.CreateConnection("tcp", stalling, func() loopbench.BaseProtocol { return newTLSProto(l, false) },
		loopbench.WithTLS(f.clientConfig(0)), loopbench.WithServerName("localhost"))
	for range 2 { // the ClientHellos of the timed-out handshake and of the one left for Close
		if _, err := complete(t, l, futureOf(l, heard)); err != nil {
			t.Fatal(err)
		}
	}
}
