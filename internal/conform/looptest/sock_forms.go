package looptest

import (
	"bytes"
	"errors"
	"testing"

	"github.com/loopbench/loopbench"
	"github.com/loopbench/loopbench/internal/sys/sock"
	"golang.org/x/sys/unix"
)

// sockPair returns a connected, non-blocking socketpair, closed at the
// end of the test.
func sockPair(t *testing.T) (a, b int) {
	a, b, err := sock.Socketpair()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sock.Close(a); sock.Close(b) })
	return a, b
}

// testSockFormsBulk: the coroutine forms move 1 MiB through a socketpair
// whose buffers hold far less, so SockSendAll waits for writability and
// SockRecvInto for data many times; the bytes arrive whole and in order,
// and the end of stream reads as 0.
func testSockFormsBulk(t *testing.T, l *loopbench.Loop) {
	a, b := sockPair(t)
	msg := pattern(1 << 20)
	send := l.CreateTask(func(tk *loopbench.Task) (any, error) {
		err := loopbench.SockSendAll(tk, a, msg)
		if err == nil {
			err = unix.Shutdown(a, unix.SHUT_WR) // end of stream for the reader
		}
		return nil, err
	})
	recv := l.CreateTask(func(tk *loopbench.Task) (any, error) {
		var got []byte
		buf := make([]byte, 10000)
		for {
			n, err := loopbench.SockRecvInto(tk, b, buf)
			if err != nil || n == 0 {
				return got, err
			}
			got = append(got, buf[:n]...)
		}
	})
	if _, err := complete(t, l, send); err != nil {
		t.Fatalf("SockSendAll(t, ...) = %v", err)
	}
	v, err := complete(t, l, recv)
	if err != nil {
		t.Fatalf("SockRecvInto(t, ...) = %v", err)
	}
	if got := v.([]byte); !bytes.Equal(got, msg) {
		t.Fatalf("received %d bytes, not the %d sent", len(got), len(msg))
	}
}

// testSockFormCancel: a task cancelled while SockRecvInto waits gets
// ErrCancelled and leaves no reader on the fd; the task handles it, and
// its next SockRecvInto on the same fd reads what arrives later.
func testSockFormCancel(t *testing.T, l *loopbench.Loop) {
	a, b := sockPair(t)
	task := l.CreateTask(func(tk *loopbench.Task) (any, error) {
		buf := make([]byte, 16)
		if _, err := loopbench.SockRecvInto(tk, a, buf); !errors.Is(err, loopbench.ErrCancelled) {
			return nil, errors.New("the cancelled read did not fail with ErrCancelled")
		}
		tk.Uncancel()
		if l.RemoveReader(a) {
			return nil, errors.New("the cancelled read left its reader on the fd")
		}
		l.CallSoon(func() { sock.UserWrite(b, []byte("later")) })
		n, err := loopbench.SockRecvInto(tk, a, buf)
		return string(buf[:n]), err
	})
	l.CallSoon(func() { task.Cancel("stop reading") }) // after the task's first step: it waits
	v, err := complete(t, l, task)
	if err != nil || v != "later" {
		t.Fatalf("after the cancelled read: %q, %v; want \"later\"", v, err)
	}
}

// testSockFormOutsideTask: the coroutine forms called with a task that
// is not running its function fail at once and touch the socket not at
// all: the data waiting stays for the next read.
func testSockFormOutsideTask(t *testing.T, l *loopbench.Loop) {
	a, b := sockPair(t)
	idle := l.CreateTask(func(*loopbench.Task) (any, error) { return nil, nil })
	if _, err := complete(t, l, idle); err != nil {
		t.Fatal(err)
	}
	if _, err := sock.UserWrite(b, []byte("kept")); err != nil {
		t.Fatal(err)
	}
	if _, err := loopbench.SockRecvInto(idle, a, make([]byte, 8)); err == nil {
		t.Fatal("SockRecvInto with a task not running its function succeeded")
	}
	if err := loopbench.SockSendAll(idle, a, []byte("x")); err == nil {
		t.Fatal("SockSendAll with a task not running its function succeeded")
	}
	buf := make([]byte, 8)
	if n, err := sock.UserRead(a, buf); err != nil || string(buf[:n]) != "kept" {
		t.Fatalf("the data after the refused calls: %q, %v; want \"kept\"", buf[:n], err)
	}
	if n, err := sock.UserRead(b, buf); !sock.IsAgain(err) {
		t.Fatalf("the refused SockSendAll wrote %d bytes (%v)", n, err)
	}
}
