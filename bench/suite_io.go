package bench

import (
	"fmt"

	"github.com/loopbench/loopbench"
	"github.com/loopbench/loopbench/internal/measure/echo"
)

// ioChainCases: libevent's bench.c (IOChain) with p socketpairs and a
// chains in flight, per selector, run in RunForever or one iteration at a
// time.
func ioChainCases(o Options, add func(Case)) {
	pairs := []int{100, 1000, 9990}
	if o.Quick {
		pairs = []int{100, 1000}
	}
	sels := variants(o, func(c loopbench.Config) loopbench.Config { return loopbench.Config{Selector: c.Selector} })
	modes := []struct {
		mode string
		run  func(c *IOChain, t Timer, active, n int) error
	}{
		{"run", (*IOChain).Run},
		{"once", (*IOChain).RunOnce},
	}
	for _, cfg := range sels {
		for _, p := range pairs {
			for _, a := range []int{1, 100} {
				for _, m := range modes {
					add(Case{"IOChain", cfg.String(), fmt.Sprintf("p=%d/a=%d/mode=%s", p, a, m.mode), onLoop(cfg, func(l *loopbench.Loop) (func(Timer, int) error, func(), error) {
						chain, err := NewIOChain(l, p)
						if err != nil {
							return nil, nil, err
						}
						return func(t Timer, n int) error { return m.run(chain, t, a, n) }, chain.Close, nil
					})})
				}
			}
		}
	}
}

// echoSize is the message size of Echo.
const echoSize = 1 << 10

// echoCases: TCP round trips over loopback to a loop's echo server in
// each style on each selector, to a goroutine-per-connection server, and
// over TLS.
func echoCases(o Options, add func(Case)) {
	conns := []int{1, 10}
	if o.Quick {
		conns = []int{10}
	}
	sels := variants(o, func(c loopbench.Config) loopbench.Config { return loopbench.Config{Selector: c.Selector} })
	for _, k := range conns {
		for _, cfg := range sels {
			for _, style := range []string{"protocol", "task", "stream"} {
				add(Case{"Echo", cfg.String(), fmt.Sprintf("style=%s/size=%d/conns=%d", style, echoSize, k), onLoop(cfg, func(l *loopbench.Loop) (func(Timer, int) error, func(), error) {
					addr, err := EchoServer(l, style)
					if err != nil {
						return nil, nil, err
					}
					clients, err := DialEcho(addr, k, echoSize)
					if err != nil {
						return nil, nil, err
					}
					return func(t Timer, n int) error { return clients.Run(t, n, ServeOn(l)) }, clients.Close, nil
				})})
			}
		}
		add(Case{"Echo", "impl=gonet", fmt.Sprintf("size=%d/conns=%d", echoSize, k), func() (func(Timer, int) error, func(), error) {
			g, err := echo.ServeGonet("tcp", "127.0.0.1:0")
			if err != nil {
				return nil, nil, err
			}
			clients, err := DialEcho(g.Addr().String(), k, echoSize)
			if err != nil {
				g.Close()
				return nil, nil, err
			}
			return func(t Timer, n int) error { return clients.Run(t, n, ServeGoroutines) }, func() { clients.Close(); g.Close() }, nil
		}})
	}
	tlsEchoCases(sels, conns, add)
}

// udpEchoSize is the datagram size of UDPEcho.
const udpEchoSize = 512

// udpEchoCases: datagram round trips over loopback to a loop's datagram
// endpoint on each selector, and to a net.UDPConn read by one goroutine.
func udpEchoCases(o Options, add func(Case)) {
	conns := []int{1, 10}
	if o.Quick {
		conns = []int{10}
	}
	sels := variants(o, func(c loopbench.Config) loopbench.Config { return loopbench.Config{Selector: c.Selector} })
	for _, k := range conns {
		params := fmt.Sprintf("size=%d/conns=%d", udpEchoSize, k)
		for _, cfg := range sels {
			add(Case{"UDPEcho", cfg.String(), params, onLoop(cfg, func(l *loopbench.Loop) (func(Timer, int) error, func(), error) {
				v, err := l.RunUntilComplete(echo.ServeUDP(l, "udp", "127.0.0.1:0"))
				if err != nil {
					return nil, nil, err
				}
				clients, err := DialEchoNet("udp", v.(*loopbench.DatagramTransport).LocalAddr().String(), k, udpEchoSize)
				if err != nil {
					return nil, nil, err
				}
				return func(t Timer, n int) error { return clients.Run(t, n, ServeOn(l)) }, clients.Close, nil
			})})
		}
		add(Case{"UDPEcho", "impl=udpconn", params, func() (func(Timer, int) error, func(), error) {
			s, err := echo.ServeUDPConn("udp", "127.0.0.1:0")
			if err != nil {
				return nil, nil, err
			}
			clients, err := DialEchoNet("udp", s.Addr().String(), k, udpEchoSize)
			if err != nil {
				s.Close()
				return nil, nil, err
			}
			return func(t Timer, n int) error { return clients.Run(t, n, ServeGoroutines) }, func() { clients.Close(); s.Close() }, nil
		}})
	}
}

// signalCases: a signal's delivery to a loop's handler on each selector,
// and (on Linux) the signalfd path as far as a Go process can take it.
func signalCases(o Options, add func(Case)) {
	for _, cfg := range variants(o, func(c loopbench.Config) loopbench.Config { return loopbench.Config{Selector: c.Selector} }) {
		add(Case{"Signal", cfg.String(), "op=deliver", onLoop(cfg, func(l *loopbench.Loop) (func(Timer, int) error, func(), error) {
			return func(t Timer, n int) error { return SignalNotify(t, l, n) }, nil, nil
		})})
	}
	addSignalfdBaseline(add)
}

// subprocessCases: a child spawned and waited for, on each selector, and
// with os/exec.
func subprocessCases(o Options, add func(Case)) {
	for _, cfg := range variants(o, func(c loopbench.Config) loopbench.Config { return loopbench.Config{Selector: c.Selector} }) {
		add(Case{"Subprocess", cfg.String(), "op=spawn-wait", onLoop(cfg, func(l *loopbench.Loop) (func(Timer, int) error, func(), error) {
			return func(t Timer, n int) error { return SubprocessSpawnWait(t, l, n) }, nil, nil
		})})
	}
	add(Case{"Subprocess", "impl=osexec", "op=spawn-wait", plain(func(t Timer, n int) error { return OSExecSpawnWait(t, n) })})
}
