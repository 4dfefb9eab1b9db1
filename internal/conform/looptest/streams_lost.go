package looptest

import (
	"errors"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/loopbench/loopbench"
)

// lostAs checks that err says the connection is lost and why: it matches
// both loopbench.ErrConnectionLost and errno (asyncio's ConnectionError
// and its subclass), and says "connection lost" once.
func lostAs(what string, err error, errno syscall.Errno) error {
	if !errors.Is(err, loopbench.ErrConnectionLost) || !errors.Is(err, errno) || strings.Count(err.Error(), "connection lost") != 1 {
		return errorf("%s: %v, want ErrConnectionLost and %v, wrapped once", what, err, errno)
	}
	return nil
}

// acceptOnce accepts one connection on ln in a goroutine, reads a byte
// from it (so that the client has seen the connection made) and closes it
// (with a reset if reset: SO_LINGER 0); the channel reports the outcome.
func acceptOnce(ln net.Listener, reset bool) <-chan error {
	done := make(chan error, 1)
	go func() {
		c, err := ln.Accept()
		if err != nil {
			done <- err
			return
		}
		if _, err := io.ReadFull(c, make([]byte, 1)); err != nil {
			c.Close()
			done <- err
			return
		}
		if reset {
			c.(*net.TCPConn).SetLinger(0)
		}
		done <- c.Close()
	}()
	return done
}

// testDrainAfterReset: a peer that resets the connection (SO_LINGER 0)
// makes the read fail and Drain return an error that is both
// ErrConnectionLost and ECONNRESET (asyncio's ConnectionResetError).
func testDrainAfterReset(t *testing.T, l *loopbench.Loop) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	accepted := acceptOnce(ln, true)
	runTask(t, l, func(tk *loopbench.Task) error {
		r, w, err := loopbench.OpenConnection(tk, "tcp", ln.Addr().String())
		if err != nil {
			return err
		}
		defer w.Close()
		w.Write([]byte("x"))
		if _, err := r.Read(tk, 10); lostAs("Read", err, syscall.ECONNRESET) != nil {
			return lostAs("Read", err, syscall.ECONNRESET)
		}
		return lostAs("Drain", w.Drain(tk), syscall.ECONNRESET)
	})
	if err := <-accepted; err != nil {
		t.Fatal(err)
	}
}

// testWriteAfterPeerClosed: a Write after the peer closed its end (a Unix
// socket, where the broken pipe shows at once) returns an error that is
// both ErrConnectionLost and EPIPE (asyncio's BrokenPipeError), and so
// does the Drain after it; SockSendAll on a socket whose peer closed too.
func testWriteAfterPeerClosed(t *testing.T, l *loopbench.Loop) {
	dir, err := os.MkdirTemp("", "lb") // short: a socket path has a limit
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	ln, err := net.Listen("unix", filepath.Join(dir, "s"))
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	accepted := acceptOnce(ln, false)
	fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_STREAM, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer syscall.Close(fds[0])
	syscall.Close(fds[1])
	if err := syscall.SetNonblock(fds[0], true); err != nil {
		t.Fatal(err)
	}
	runTask(t, l, func(tk *loopbench.Task) error {
		r, w, err := loopbench.OpenConnection(tk, "unix", ln.Addr().String())
		if err != nil {
			return err
		}
		defer w.Close()
		w.Write([]byte("x"))
		if _, err := r.Read(tk, 10); err != io.EOF {
			return errorf("Read after the peer closed: %v, want io.EOF", err)
		}
		if err := lostAs("Write", w.Write([]byte("late")), syscall.EPIPE); err != nil {
			return err
		}
		if err := lostAs("Drain", w.Drain(tk), syscall.EPIPE); err != nil {
			return err
		}
		_, err = tk.Await(l.SockSendAll(fds[0], []byte("late")))
		return lostAs("SockSendAll", err, syscall.EPIPE)
	})
	if err := <-accepted; err != nil {
		t.Fatal(err)
	}
}
