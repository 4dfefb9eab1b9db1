package loopbench_test

import (
	"fmt"
	"io"
	"net"
	"sync"
	"testing"

	"github.com/loopbench/loopbench"
	"github.com/loopbench/loopbench/internal/echo"
)

// echoSize is the message size of the echo benchmarks.
const echoSize = 1 << 10

// BenchmarkEcho is the round trip of a 1 KiB message over loopback TCP, with
// 1 and 10 connections, against the protocol-style and the task-style echo
// server on each variant and against gonet, a goroutine-per-connection
// server on the net package. The clients are goroutines of this process
// doing blocking round trips; req/s is the round trips per second.
func BenchmarkEcho(b *testing.B) {
	for _, conns := range []int{1, 10} {
		for _, cfg := range loopbench.Variants() {
			for _, style := range []string{"protocol", "task"} {
				b.Run(fmt.Sprintf("%v/style=%s/size=%d/conns=%d", cfg, style, echoSize, conns), func(b *testing.B) {
					benchLoopEcho(b, cfg, style, conns)
				})
			}
		}
		b.Run(fmt.Sprintf("impl=gonet/size=%d/conns=%d", echoSize, conns), func(b *testing.B) {
			g, err := echo.ServeGonet("tcp", "127.0.0.1:0")
			if err != nil {
				b.Fatal(err)
			}
			defer g.Close()
			runClients(b, g.Addr().String(), conns, func(start func()) { start() })
		})
	}
}

func benchLoopEcho(b *testing.B, cfg loopbench.Config, style string, conns int) {
	l := newLoop(b, cfg)
	var addr string
	if style == "protocol" {
		s, err := echo.ServeProtocol(l, "tcp", "127.0.0.1:0")
		if err != nil {
			b.Fatal(err)
		}
		addr = s.Addr().String()
	} else {
		s, err := echo.ServeTask(l, "tcp", "127.0.0.1:0")
		if err != nil {
			b.Fatal(err)
		}
		addr = s.Addr().String()
	}
	runClients(b, addr, conns, func(start func()) {
		done := l.CreateFuture()
		go func() {
			start()
			l.CallSoonThreadsafe(func() { done.SetResult(nil) })
		}()
		if _, err := l.RunUntilComplete(done); err != nil {
			b.Error(err)
		}
	})
}

// runClients connects conns clients to addr, then times b.N round trips
// shared among them. serve is given the function that runs the clients to
// completion; it must run it while serving (for a loop: on another
// goroutine, while the loop runs).
func runClients(b *testing.B, addr string, conns int, serve func(start func())) {
	cs := make([]net.Conn, conns)
	for i := range cs {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			b.Fatal(err)
		}
		defer c.Close()
		cs[i] = c
	}
	b.ReportAllocs()
	b.ResetTimer()
	serve(func() {
		var wg sync.WaitGroup
		for i, c := range cs {
			n := b.N / conns
			if i < b.N%conns {
				n++
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				msg, got := make([]byte, echoSize), make([]byte, echoSize)
				for range n {
					if _, err := c.Write(msg); err != nil {
						b.Error(err)
						return
					}
					if _, err := io.ReadFull(c, got); err != nil {
						b.Error(err)
						return
					}
				}
			}()
		}
		wg.Wait()
	})
	b.StopTimer()
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "req/s")
}
