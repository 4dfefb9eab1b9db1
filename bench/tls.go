package bench

import (
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/loopbench/loopbench"
	"github.com/loopbench/loopbench/internal/measure/echo"
	"github.com/loopbench/loopbench/internal/measure/tlscert"
)

var (
	tlsOnce                    sync.Once
	tlsServerCfg, tlsClientCfg *tls.Config
	tlsErr                     error
)

// EchoTLSConfigs returns the configs of the TLS echo workloads: a server
// with a throwaway ECDSA P-256 certificate for localhost and 127.0.0.1,
// and a client that trusts it. Both are TLS 1.3 only with X25519 only
// (the key exchange the Python peers' OpenSSL takes too, where Go would
// offer a post-quantum hybrid), and the client keeps no session: every
// handshake is a full one.
func EchoTLSConfigs() (server, client *tls.Config, err error) {
	tlsOnce.Do(func() {
		var ca *tlscert.CA
		if ca, tlsErr = tlscert.NewCA("loopbench bench CA"); tlsErr != nil {
			return
		}
		cert, err := ca.Issue("localhost", "127.0.0.1")
		if err != nil {
			tlsErr = err
			return
		}
		curves := []tls.CurveID{tls.X25519}
		tlsServerCfg = &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS13, CurvePreferences: curves}
		tlsClientCfg = &tls.Config{RootCAs: ca.Pool, ServerName: "localhost", MinVersion: tls.VersionTLS13, CurvePreferences: curves}
	})
	return tlsServerCfg, tlsClientCfg, tlsErr
}

// DialEchoTLS connects conns TLS clients with config to addr, their
// handshakes done.
func DialEchoTLS(addr string, conns, size int, config *tls.Config) (*EchoClients, error) {
	e := &EchoClients{size: size}
	for range conns {
		c, err := tls.Dial("tcp", addr, config)
		if err == nil {
			c.SetDeadline(time.Now().Add(roundTripTimeout))
			err = c.Handshake()
			c.SetDeadline(time.Time{})
		}
		if err != nil {
			e.Close()
			return nil, err
		}
		e.conns = append(e.conns, c)
	}
	return e, nil
}

// Handshakes makes n TLS handshakes with addr, shared among conns client
// goroutines, while serve runs (as EchoClients.Run): each connects,
// handshakes in full, makes a 1-byte round trip (so the server's side of
// the handshake is done too) and resets the connection (SO_LINGER 0, so
// that a long run leaves no TIME_WAIT to exhaust the ports). It reports
// handshakes/s.
func Handshakes(t Timer, n, conns int, addr string, config *tls.Config, serve func(clients func() error) error) error {
	t.ResetTimer()
	start := time.Now()
	err := serve(func() error {
		return eachClient(conns, func(i int) error {
			for range share(n, conns, i) {
				if err := handshakeOnce(addr, config); err != nil {
					return err
				}
			}
			return nil
		})
	})
	elapsed := time.Since(start)
	t.StopTimer()
	t.ReportMetric(float64(n)/elapsed.Seconds(), "handshakes/s")
	return err
}

// HandshakesFor makes handshakes as Handshakes does, with conns client
// goroutines, for d, against a server that runs by itself; it returns how
// many completed.
func HandshakesFor(d time.Duration, conns int, addr string, config *tls.Config) (int64, error) {
	var made atomic.Int64
	end := time.Now().Add(d)
	err := eachClient(conns, func(int) error {
		for time.Now().Before(end) {
			if err := handshakeOnce(addr, config); err != nil {
				return err
			}
			made.Add(1)
		}
		return nil
	})
	return made.Load(), err
}

// share is client i's part of n operations shared among conns clients.
func share(n, conns, i int) int {
	k := n / conns
	if i < n%conns {
		k++
	}
	return k
}

// eachClient runs fn(i) for i in [0, conns) on goroutines of their own
// and returns the first error.
func eachClient(conns int, fn func(i int) error) error {
	var wg sync.WaitGroup
	errs := make([]error, conns)
	for i := range conns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = fn(i)
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}

// handshakeOnce is one connection of Handshakes.
func handshakeOnce(addr string, config *tls.Config) error {
	raw, err := net.DialTimeout("tcp", addr, roundTripTimeout)
	if err != nil {
		return err
	}
	raw.(*net.TCPConn).SetLinger(0)
	c := tls.Client(raw, config)
	defer c.Close()
	c.SetDeadline(time.Now().Add(roundTripTimeout))
	if err := c.Handshake(); err != nil {
		return err
	}
	b := []byte{'h'}
	if _, err := c.Write(b); err != nil {
		return err
	}
	_, err = c.Read(b)
	return err
}

// tlsEchoCases: Echo style=tls, 1 KiB round trips over TLS 1.3 on
// connections whose handshake is done, and op=handshake, full handshakes
// (each with a 1-byte round trip), to a loop's protocol-style TLS server
// on each variant given and to gonet on crypto/tls.
func tlsEchoCases(sels []loopbench.Config, conns []int, add func(Case)) {
	params := func(k int) []string {
		return []string{fmt.Sprintf("style=tls/size=%d/conns=%d", echoSize, k), fmt.Sprintf("style=tls/op=handshake/conns=%d", k)}
	}
	run := func(p, addr string, k int, serve func(func() error) error) (func(Timer, int) error, func(), error) {
		_, ccfg, err := EchoTLSConfigs()
		if err != nil {
			return nil, nil, err
		}
		if p == params(k)[1] {
			return func(t Timer, n int) error { return Handshakes(t, n, k, addr, ccfg, serve) }, nil, nil
		}
		var clients *EchoClients
		err = serve(func() (err error) { // a loop serves the handshakes
			clients, err = DialEchoTLS(addr, k, echoSize, ccfg)
			return err
		})
		if err != nil {
			return nil, nil, err
		}
		return func(t Timer, n int) error { return clients.Run(t, n, serve) }, clients.Close, nil
	}
	for _, k := range conns {
		for _, p := range params(k) {
			for _, cfg := range sels {
				add(Case{"Echo", cfg.String(), p, onLoop(cfg, func(l *loopbench.Loop) (func(Timer, int) error, func(), error) {
					addr, err := EchoServer(l, "tls")
					if err != nil {
						return nil, nil, err
					}
					return run(p, addr, k, ServeOn(l))
				})})
			}
			add(Case{"Echo", "impl=gonet", p, func() (func(Timer, int) error, func(), error) {
				scfg, _, err := EchoTLSConfigs()
				if err != nil {
					return nil, nil, err
				}
				g, err := echo.ServeGonetTLS("tcp", "127.0.0.1:0", scfg)
				if err != nil {
					return nil, nil, err
				}
				op, cleanup, err := run(p, g.Addr().String(), k, ServeGoroutines)
				if err != nil {
					g.Close()
					return nil, nil, err
				}
				return op, func() {
					if cleanup != nil {
						cleanup()
					}
					g.Close()
				}, nil
			}})
		}
	}
}
