package echo

import (
	"errors"
	"net"
	"sync"

	"github.com/loopbench/loopbench"
)

// udpProtocol echoes each datagram to its sender.
type udpProtocol struct {
	loopbench.DatagramProtocolBase
	t *loopbench.DatagramTransport
}

func (p *udpProtocol) ConnectionMade(t *loopbench.DatagramTransport) { p.t = t }
func (p *udpProtocol) DatagramReceived(data []byte, addr net.Addr)   { p.t.SendTo(data, addr) }

// ServeUDP starts a datagram echo endpoint on l; the future's result is
// its *loopbench.DatagramTransport.
func ServeUDP(l *loopbench.Loop, network, address string) *loopbench.Future {
	return l.CreateDatagramEndpoint(network, address, "", func() loopbench.DatagramProtocol { return new(udpProtocol) })
}

// UDPConn is the baseline datagram echo server: one goroutine reading a
// net.UDPConn and writing each datagram back.
type UDPConn struct {
	c  *net.UDPConn
	wg sync.WaitGroup
}

// ServeUDPConn starts the baseline on address.
func ServeUDPConn(network, address string) (*UDPConn, error) {
	a, err := net.ResolveUDPAddr(network, address)
	if err != nil {
		return nil, err
	}
	c, err := net.ListenUDP(network, a)
	if err != nil {
		return nil, err
	}
	s := &UDPConn{c: c}
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		buf := make([]byte, 65535)
		for {
			n, from, err := c.ReadFromUDPAddrPort(buf)
			if err != nil {
				if errors.Is(err, net.ErrClosed) {
					return
				}
				continue
			}
			c.WriteToUDPAddrPort(buf[:n], from)
		}
	}()
	return s, nil
}

// Addr returns the address the server listens on.
func (s *UDPConn) Addr() net.Addr { return s.c.LocalAddr() }

// Close stops the server and waits for its goroutine.
func (s *UDPConn) Close() error {
	err := s.c.Close()
	s.wg.Wait()
	return err
}
