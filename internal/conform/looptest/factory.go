package looptest

import (
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/loopbench/loopbench"
)

// FactoryPanicLeavesNoFd: a protocol factory that panics, on a server's
// accepted connections and in CreateConnection, closes the connection's
// socket: the peer sees its end, the future fails, no fd stays open, each
// panic reaches the exception handler and the loop goes on. It counts the
// process's fds, so it must not run in parallel.
func FactoryPanicLeavesNoFd(t *testing.T, cfg loopbench.Config) {
	l := New(t, cfg)
	panics := 0
	l.SetExceptionHandler(func(c loopbench.ExceptionContext) {
		if c.Panic != nil {
			panics++
		}
	})
	s, err := l.CreateServer("tcp", "127.0.0.1:0", func() loopbench.BaseProtocol { panic("server factory") })
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	addr := s.Addr().String()
	if ln, err := net.Listen("tcp", "127.0.0.1:0"); err == nil { // the runtime's poller, for good
		ln.Close()
	}
	fds := openFds(t)
	_, err = complete(t, l, l.CreateConnection("tcp", addr, func() loopbench.BaseProtocol { panic("client factory") }))
	if err == nil || !strings.Contains(err.Error(), "factory panicked") {
		t.Fatalf("CreateConnection with a panicking factory: %v, want the panic as its error", err)
	}
	const conns = 5
	whileClient(t, l, func() error {
		for i := range conns {
			if err := expectClosed(addr, nil); err != nil {
				return fmt.Errorf("connection %d: %w", i, err)
			}
		}
		return nil
	})
	if n := openFds(t); n != fds {
		t.Fatalf("%d fds open after the panics, %d before", n, fds)
	}
	if want := 2 + conns; panics != want {
		t.Fatalf("%d panics reached the exception handler, want %d", panics, want)
	}
}

// expectClosed dials addr, sends send, and expects the server to close
// the connection without a byte (or reset it).
func expectClosed(addr string, send []byte) error {
	c, err := net.Dial("tcp", addr)
	if err != nil {
		return err
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(30 * time.Second))
	if _, err := c.Write(send); err != nil {
		return err
	}
	n, err := c.Read(make([]byte, 1))
	switch {
	case errors.Is(err, io.EOF) || errors.Is(err, syscall.ECONNRESET):
		return nil
	case errors.Is(err, os.ErrDeadlineExceeded):
		return errors.New("the server kept the connection open")
	}
	return fmt.Errorf("read %d bytes, %v; want the end of the stream", n, err)
}
