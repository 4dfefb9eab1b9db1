package bench

import (
	"fmt"
	"io"
	"net"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/loopbench/loopbench"
	"github.com/loopbench/loopbench/internal/measure/echo"
	"github.com/loopbench/loopbench/internal/measure/loadresult"
)

// EchoServer starts the style ("protocol", "task", "stream", or "tls": the
// protocol-style server over TLS with EchoTLSConfigs' server config) echo
// server on l, on a free loopback port, and returns its address.
func EchoServer(l *loopbench.Loop, style string) (string, error) {
	return EchoServerAt(l, style, "127.0.0.1:0")
}

// EchoServerAt is EchoServer listening on addr.
func EchoServerAt(l *loopbench.Loop, style, addr string) (string, error) {
	var opts []loopbench.NetOption
	if style == "tls" {
		scfg, _, err := EchoTLSConfigs()
		if err != nil {
			return "", err
		}
		style, opts = "protocol", []loopbench.NetOption{loopbench.WithTLS(scfg)}
	}
	if style != "protocol" && style != "task" && style != "stream" {
		return "", fmt.Errorf("bench: unknown echo style %q (protocol, task, stream, tls)", style)
	}
	a, err := echo.Listen(l, style, nil, "tcp", addr, opts...)
	if err != nil {
		return "", err
	}
	return a.String(), nil
}

// EchoClients are conns connections to an echo server, each a goroutine of
// this process doing blocking round trips of size-byte messages. They
// are dialled once and reused by every Run.
type EchoClients struct {
	conns []net.Conn
	size  int
}

// DialEcho connects conns TCP clients to addr.
func DialEcho(addr string, conns, size int) (*EchoClients, error) {
	return DialEchoNet("tcp", addr, conns, size)
}

// DialEchoNet connects conns clients to addr over network: tcp, or udp,
// where each round trip is one datagram each way.
func DialEchoNet(network, addr string, conns, size int) (*EchoClients, error) {
	e := &EchoClients{size: size}
	for range conns {
		c, err := net.Dial(network, addr)
		if err != nil {
			e.Close()
			return nil, err
		}
		e.conns = append(e.conns, c)
	}
	return e, nil
}

// Run makes n round trips shared among the clients while serve runs: serve
// is given the function that runs the clients to completion and must
// serve meanwhile (a loop runs them on another goroutine and itself until
// they are done; gonet just calls it). It reports req/s and the 99th
// percentile round trip in ns, read from an HDR histogram of them
// (loadresult.NewHistogram's bounds: three significant digits).
func (e *EchoClients) Run(t Timer, n int, serve func(clients func() error) error) error {
	rtts := make([]*hdrhistogram.Histogram, len(e.conns))
	for i := range rtts {
		rtts[i] = loadresult.NewHistogram()
	}
	t.ResetTimer()
	start := time.Now()
	err := serve(func() error { return e.clients(n, rtts) })
	elapsed := time.Since(start)
	t.StopTimer()
	all := rtts[0]
	for _, h := range rtts[1:] {
		all.Merge(h)
	}
	if all.TotalCount() > 0 {
		t.ReportMetric(float64(all.TotalCount())/elapsed.Seconds(), "req/s")
		t.ReportMetric(float64(all.ValueAtQuantile(99)), "rtt-p99-ns")
	}
	return err
}

// clients runs the round trips, client i recording each one's duration
// in rtts[i].
func (e *EchoClients) clients(n int, rtts []*hdrhistogram.Histogram) error {
	return eachClient(len(e.conns), func(i int) error {
		c := e.conns[i]
		msg, got := make([]byte, e.size), make([]byte, e.size)
		for range share(n, len(e.conns), i) {
			t0 := time.Now()
			c.SetDeadline(t0.Add(roundTripTimeout)) // a lost datagram fails the run, never hangs it
			if _, err := c.Write(msg); err != nil {
				return err
			}
			if _, err := io.ReadFull(c, got); err != nil {
				return err
			}
			if err := rtts[i].RecordValue(int64(time.Since(t0))); err != nil {
				return err
			}
		}
		return nil
	})
}

// roundTripTimeout bounds one round trip of the echo clients.
const roundTripTimeout = 10 * time.Second

// ServeOn returns the serve function of Run for loop l: the clients run
// on another goroutine while l runs, until they are done.
func ServeOn(l *loopbench.Loop) func(clients func() error) error {
	return func(clients func() error) error {
		done := l.CreateFuture()
		go func() {
			err := clients()
			l.CallSoonThreadsafe(func() { done.SetResult(err) })
		}()
		v, err := l.RunUntilComplete(done)
		if err != nil {
			return err
		}
		err, _ = v.(error)
		return err
	}
}

// ServeGoroutines is the serve function of Run for servers that run by
// themselves (gonet).
func ServeGoroutines(clients func() error) error { return clients() }

// Close closes the connections.
func (e *EchoClients) Close() {
	for _, c := range e.conns {
		c.Close()
	}
}
