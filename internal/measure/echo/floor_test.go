package echo

import (
	"io"
	"net"
	"testing"

	"github.com/loopbench/loopbench"
)

// TestFloors: both floors echo requests whole, each sent in two writes;
// the coroutine's floor ends its coroutine when the connection is lost,
// so nothing is left to resume.
func TestFloors(t *testing.T) {
	for _, co := range []bool{false, true} {
		l, err := loopbench.New(loopbench.Config{})
		if err != nil {
			t.Fatal(err)
		}
		made := make(chan *nextProtocol, 1)
		srv, err := l.CreateServer("tcp", "127.0.0.1:0", func() loopbench.BaseProtocol {
			when := NextIteration
			if co {
				when = Coroutine
			}
			p := &nextProtocol{a: NewAnswerer(l, when)}
			made <- p
			return p
		})
		if err != nil {
			t.Fatal(err)
		}
		done := make(chan error, 1)
		go func() { done <- l.RunForever() }()
		c, err := net.Dial("tcp", srv.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		buf := make([]byte, 8)
		for i := range 3 {
			c.Write([]byte("abcd"))
			c.Write([]byte("efgh"))
			if _, err := io.ReadFull(c, buf); err != nil || string(buf) != "abcdefgh" {
				t.Fatalf("coroutine %v, request %d: %q, %v", co, i, buf, err)
			}
		}
		c.Close()
		p := <-made
		ended := make(chan bool)
		l.CallSoonThreadsafe(func() {
			p.ConnectionLost(nil)
			ok := false
			if p.a.next != nil {
				_, ok = p.a.next()
			}
			ended <- !ok
			l.Stop()
		})
		if !<-ended {
			t.Errorf("coroutine %v: the coroutine resumed after the connection was lost", co)
		}
		if err := <-done; err != nil {
			t.Fatal(err)
		}
		srv.Close()
		l.Close()
	}
}
