package looptest

import (
	"errors"
	"fmt"
	"net"
	"syscall"
	"testing"
	"time"

	"github.com/loopbench/loopbench"
)

// RunDatagrams runs the datagram suite on cfg: a UDP echo, a datagram to
// a closed port, and 1000 datagrams counted, with host names.
func RunDatagrams(t *testing.T, cfg loopbench.Config) {
	runEach(t, cfg, []loopTest{
		{"Echo", testUDPEcho},
		{"ClosedPort", testUDPClosedPort},
		{"Count1000", testUDPCount},
	})
}

// udpEcho echoes datagrams to their sender and counts them.
type udpEcho struct {
	loopbench.DatagramProtocolBase
	t      *loopbench.DatagramTransport
	n      int
	errors []error
	lost   chan error
}

func (e *udpEcho) ConnectionMade(t *loopbench.DatagramTransport) { e.t = t }
func (e *udpEcho) DatagramReceived(data []byte, addr net.Addr) {
	e.n++
	e.t.SendTo(data, addr)
}
func (e *udpEcho) ErrorReceived(err error)  { e.errors = append(e.errors, err) }
func (e *udpEcho) ConnectionLost(err error) { e.lost <- err }

// udpServer starts an echo endpoint on localhost:0.
func udpServer(t *testing.T, l *loopbench.Loop) (*udpEcho, *loopbench.DatagramTransport) {
	t.Helper()
	e := &udpEcho{lost: make(chan error, 1)}
	v, err := complete(t, l, l.CreateDatagramEndpoint("udp", "localhost:0", "", func() loopbench.DatagramProtocol { return e }))
	if err != nil {
		t.Fatal(err)
	}
	return e, v.(*loopbench.DatagramTransport)
}

// udpClient runs n lockstep round trips of msg against addr.
func udpClient(addr net.Addr, n int, msg []byte) error {
	c, err := net.Dial("udp", addr.String())
	if err != nil {
		return err
	}
	defer c.Close()
	buf := make([]byte, 2048)
	for i := range n {
		for try := 0; ; try++ {
			c.SetDeadline(time.Now().Add(time.Second))
			if _, err := c.Write(msg); err != nil {
				return err
			}
			m, err := c.Read(buf)
			if err == nil {
				if string(buf[:m]) != string(msg) {
					return fmt.Errorf("round trip %d: echo %q of %q", i, buf[:m], msg)
				}
				break
			}
			if try == 3 {
				return fmt.Errorf("round trip %d: %w", i, err)
			}
		}
	}
	return nil
}

func testUDPEcho(t *testing.T, l *loopbench.Loop) {
	e, tr := udpServer(t, l)
	whileClient(t, l, func() error { return udpClient(tr.LocalAddr(), 3, []byte("ping")) })
	if e.n < 3 {
		t.Fatalf("%d datagrams echoed, want 3", e.n)
	}
	tr.Close()
	RunOnce(t, l)
	RunOnce(t, l)
	select {
	case err := <-e.lost:
		if err != nil {
			t.Fatalf("ConnectionLost(%v) after Close", err)
		}
	default:
		t.Fatal("no ConnectionLost after Close")
	}
}

func testUDPClosedPort(t *testing.T, l *loopbench.Loop) {
	probe, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := probe.LocalAddr().String()
	probe.Close()
	e := &udpEcho{lost: make(chan error, 1)}
	v, err := complete(t, l, l.CreateDatagramEndpoint("udp", "", closed, func() loopbench.DatagramProtocol { return e }))
	if err != nil {
		t.Fatal(err)
	}
	tr := v.(*loopbench.DatagramTransport)
	for i := 0; i < 50 && len(e.errors) == 0; i++ {
		tr.SendTo([]byte("anyone?"), nil)
		l.CallLater(10*time.Millisecond, l.Stop)
		RunFor(t, l, 10*time.Second)
	}
	if len(e.errors) == 0 || !errors.Is(e.errors[0], syscall.ECONNREFUSED) {
		t.Fatalf("ErrorReceived got %v, want ECONNREFUSED", e.errors)
	}
	if err := tr.SendTo([]byte("x"), &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 9}); !errors.Is(err, loopbench.ErrAddressGiven) {
		t.Fatalf("SendTo another address on a connected endpoint: %v", err)
	}
	tr.Abort()
}

func testUDPCount(t *testing.T, l *loopbench.Loop) {
	e, tr := udpServer(t, l)
	whileClient(t, l, func() error { return udpClient(tr.LocalAddr(), 1000, []byte("count me")) })
	if e.n < 1000 {
		t.Fatalf("%d datagrams received, want 1000", e.n)
	}
	if _, err := l.CreateDatagramEndpoint("udp", "", "", nil).Result(); err == nil {
		t.Fatal("an endpoint with no address")
	}
	tr.Close()
}
