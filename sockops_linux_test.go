//go:build linux

package loopbench

import (
	"bytes"
	"testing"
	"time"

	"github.com/loopbench/loopbench/internal/conform/seltest"
	"golang.org/x/sys/unix"
)

// notBlocked runs call on another goroutine and fails t if it has not
// returned within a minute: a system call blocked in the kernel, which
// would otherwise hang the test run.
func notBlocked(t *testing.T, what string, call func() *Future) *Future {
	t.Helper()
	done := make(chan *Future, 1)
	go func() { done <- call() }()
	select {
	case f := <-done:
		return f
	case <-time.After(time.Minute):
		t.Fatalf("%s blocked in a system call", what)
		return nil
	}
}

// TestSockOpsBlockingSocket: a socket left in blocking mode is read and
// written without blocking the loop (MSG_DONTWAIT): a read with nothing
// to read waits for the data, and a write larger than the socket's
// buffer waits for room.
func TestSockOpsBlockingSocket(t *testing.T) {
	eachConfig(t, func(t *testing.T, l *Loop, rec *recordingSelector) {
		a, b := seltest.Pair(t)
		if err := unix.SetNonblock(a, false); err != nil {
			t.Fatal(err)
		}
		buf := make([]byte, 64)
		f := notBlocked(t, "SockRecvInto", func() *Future { return l.SockRecvInto(a, buf) })
		if f.Done() {
			t.Fatal("SockRecvInto done with nothing to read")
		}
		seltest.Write(t, b, "data")
		if v, err := runUntilDone(t, l, f); err != nil || v != 4 || string(buf[:4]) != "data" {
			t.Fatalf("SockRecvInto = %v, %v (%q), want 4 bytes \"data\"", v, err, buf[:4])
		}
		big := bytes.Repeat([]byte("x"), 8<<20)
		f = notBlocked(t, "SockSendAll", func() *Future { return l.SockSendAll(a, big) })
		got := 0
		into := make([]byte, 1<<16)
		drain := func() { // what b can read now
			for {
				n, err := unix.Read(b, into)
				if err != nil {
					return
				}
				got += n
			}
		}
		for i := 0; !f.Done(); i++ {
			if i == 100000 {
				t.Fatal("SockSendAll not done after 100000 iterations")
			}
			drain()
			l.runOnce()
		}
		if _, err := f.Result(); err != nil {
			t.Fatal(err)
		}
		drain()
		if got != len(big) {
			t.Fatalf("read %d bytes of SockSendAll's %d", got, len(big))
		}
	})
}

// TestSockOpsPipe: an fd that is not a socket (a pipe's ends) is read and
// written with ordinary system calls after the socket call fails.
func TestSockOpsPipe(t *testing.T) {
	eachConfig(t, func(t *testing.T, l *Loop, rec *recordingSelector) {
		var p [2]int
		if err := unix.Pipe2(p[:], unix.O_NONBLOCK|unix.O_CLOEXEC); err != nil {
			t.Fatal(err)
		}
		defer unix.Close(p[0])
		defer unix.Close(p[1])
		if _, err := runUntilDone(t, l, l.SockSendAll(p[1], []byte("piped"))); err != nil {
			t.Fatalf("SockSendAll on a pipe: %v", err)
		}
		buf := make([]byte, 64)
		if v, err := runUntilDone(t, l, l.SockRecvInto(p[0], buf)); err != nil || v != 5 || string(buf[:5]) != "piped" {
			t.Fatalf("SockRecvInto on a pipe = %v, %v (%q), want 5 bytes \"piped\"", v, err, buf[:5])
		}
	})
}
