package loopbench

import (
	"strings"
	"testing"

	"github.com/loopbench/loopbench/internal/conform/seltest"
	"github.com/loopbench/loopbench/internal/sys/sock"
	"golang.org/x/sys/unix"
)

// TestSockOpAllocs checks that a task-style socket operation that
// completes at once allocates only itself, its future inside.
func TestSockOpAllocs(t *testing.T) {
	l, err := New(Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	a, b := seltest.Pair(t)
	fds := [2]int{a, b}
	one := []byte{'x'}
	send := testing.AllocsPerRun(100, func() {
		if f := l.SockSendAll(fds[0], one); !f.Done() {
			t.Fatal("SockSendAll of one byte did not complete at once")
		}
	})
	recv := testing.AllocsPerRun(100, func() {
		if f := l.SockRecvInto(fds[1], one); !f.Done() {
			t.Fatal("SockRecvInto with data waiting did not complete at once")
		}
	})
	if send != 1 || recv != 1 {
		t.Errorf("allocations per operation: SockSendAll %v, SockRecvInto %v; want 1 and 1", send, recv)
	}
}

// TestSockOpWaitAllocs: a read that waits for its data allocates the op
// and the callback that retries it, and nothing per wait besides (the
// selector's registration is re-armed, not rebuilt).
func TestSockOpWaitAllocs(t *testing.T) {
	l, err := New(Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	a, b := seltest.Pair(t)
	buf := make([]byte, 8)
	one := []byte{'x'}
	recvOnce(t, l, a, b, "warm") // the registration is kept from here on
	got := testing.AllocsPerRun(100, func() {
		f := l.SockRecvInto(a, buf)
		if f.Done() {
			t.Fatal("SockRecvInto with nothing to read completed at once")
		}
		if _, err := sock.UserWrite(b, one); err != nil {
			t.Fatal(err)
		}
		for i := 0; !f.Done(); i++ {
			if i == 100 {
				t.Fatal("SockRecvInto not done after 100 iterations")
			}
			l.runOnce()
		}
	})
	if got > 2 {
		t.Errorf("allocations per waiting SockRecvInto: %v; want at most 2 (the op, its retry)", got)
	}
}

// recvOnce runs l until a SockRecvInto on fd, whose peer writes p at
// once, is done, and returns its result.
func recvOnce(t *testing.T, l *Loop, fd, peer int, p string) any {
	t.Helper()
	buf := make([]byte, 64)
	f := l.SockRecvInto(fd, buf)
	if p != "" {
		seltest.Write(t, peer, p)
	}
	v, err := runUntilDone(t, l, f)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// runUntilDone runs l until f is done, at most 100 iterations, and
// returns its result.
func runUntilDone(t *testing.T, l *Loop, f *Future) (any, error) {
	t.Helper()
	for i := 0; !f.Done(); i++ {
		if i == 100 {
			t.Fatal("the operation not done after 100 iterations")
		}
		l.runOnce()
	}
	return f.Result()
}

// TestSockOpsKeepRegistration: a task-style read waits on a oneshot
// registration that stays when it is done, so the next read on the fd
// re-arms it with one Modify (and waits at once); AddReader makes it
// level-triggered again.
func TestSockOpsKeepRegistration(t *testing.T) {
	eachConfig(t, func(t *testing.T, l *Loop, rec *recordingSelector) {
		a, b := seltest.Pair(t)
		if v := recvOnce(t, l, a, b, "one"); v != 3 {
			t.Fatalf("first read: %v", v)
		}
		if v := recvOnce(t, l, a, b, "second"); v != 6 {
			t.Fatalf("second read: %v", v)
		}
		if l.RemoveReader(a) {
			t.Fatal("RemoveReader found a reader after the reads were done")
		}
		l.AddReader(a, func() {})
		l.RemoveReader(a)
		want := "register read|oneshot,modify read|oneshot,modify read,unregister"
		if got := strings.Join(rec.ops, ","); got != want {
			t.Fatalf("selector calls %q, want %q", got, want)
		}
	})
}

// TestSockOpRearms: a read woken with nothing to read (another callback
// drained the socket first) arms its registration again and completes
// with the next data.
func TestSockOpRearms(t *testing.T) {
	eachConfig(t, func(t *testing.T, l *Loop, rec *recordingSelector) {
		a, b := seltest.Pair(t)
		buf := make([]byte, 64)
		f := l.SockRecvInto(a, buf)
		seltest.Write(t, b, "stolen")
		l.CallSoon(func() { unix.Read(a, make([]byte, 64)) }) // runs before the reader
		l.runOnce()
		if f.Done() {
			t.Fatal("the read completed with nothing to read")
		}
		seltest.Write(t, b, "mine")
		if v, err := runUntilDone(t, l, f); v != 4 || err != nil {
			t.Fatalf("read: %v, %v; want 4 bytes", v, err)
		}
		want := "register read|oneshot,modify read|oneshot"
		if got := strings.Join(rec.ops, ","); got != want {
			t.Fatalf("selector calls %q, want %q", got, want)
		}
	})
}

// TestSockOpReusedFd: after a read, the fd is closed and its number
// reused by a new socket (dup2), while a duplicate keeps the old file
// open: a read on the new socket waits on the new file, and the old
// file's data is never reported.
func TestSockOpReusedFd(t *testing.T) {
	eachConfig(t, func(t *testing.T, l *Loop, rec *recordingSelector) {
		a, b := seltest.Pair(t)
		keep := seltest.DupAbove(t, a, 100)
		recvOnce(t, l, a, b, "x")
		c, d := seltest.Pair(t)
		if err := unix.Dup2(c, a); err != nil {
			t.Fatal(err)
		}
		unix.CloseOnExec(a)
		_ = keep
		seltest.Write(t, b, "old file")
		if v := recvOnce(t, l, a, d, "new"); v != 3 {
			t.Fatalf("read on the reused fd: %v, want the new socket's 3 bytes", v)
		}
	})
}

// TestSockOpCancelDone: cancelling the future of a read already done
// returns false and leaves alone the next read's reader on the same fd.
func TestSockOpCancelDone(t *testing.T) {
	eachConfig(t, func(t *testing.T, l *Loop, rec *recordingSelector) {
		a, b := seltest.Pair(t)
		first := l.SockRecvInto(a, make([]byte, 8))
		seltest.Write(t, b, "one")
		if _, err := runUntilDone(t, l, first); err != nil {
			t.Fatal(err)
		}
		second := l.SockRecvInto(a, make([]byte, 8))
		if second.Done() {
			t.Fatal("the second read completed with nothing to read")
		}
		if first.Cancel("late") {
			t.Fatal("Cancel of a done read returned true")
		}
		if l.c.fds[a].reader == 0 {
			t.Fatal("Cancel of a done read removed the next read's reader")
		}
		seltest.Write(t, b, "two")
		if v, err := runUntilDone(t, l, second); v != 3 || err != nil {
			t.Fatalf("second read: %v, %v; want 3 bytes", v, err)
		}
	})
}

// TestSockTaskFormAllocs: the coroutine forms allocate nothing per round
// trip: a task's operation and its callback are reused, and the count is
// not boxed. A run of 200 round trips allocates what a run of 20 does.
func TestSockTaskFormAllocs(t *testing.T) {
	l, err := New(Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	a, b := seltest.Pair(t)
	run := func(n int) float64 {
		return testing.AllocsPerRun(5, func() {
			echo := l.CreateTask(func(tk *Task) (any, error) {
				buf := make([]byte, 64)
				for range n {
					m, err := SockRecvInto(tk, b, buf)
					if err != nil {
						return nil, err
					}
					if err := SockSendAll(tk, b, buf[:m]); err != nil {
						return nil, err
					}
				}
				return nil, nil
			})
			client := l.CreateTask(func(tk *Task) (any, error) {
				msg, buf := []byte("ping"), make([]byte, 64)
				for range n {
					if err := SockSendAll(tk, a, msg); err != nil {
						return nil, err
					}
					if _, err := SockRecvInto(tk, a, buf); err != nil {
						return nil, err
					}
				}
				return nil, nil
			})
			if _, err := l.RunUntilComplete(Gather(l, echo, client)); err != nil {
				t.Fatal(err)
			}
		})
	}
	if few, many := run(20), run(200); many != few {
		t.Errorf("allocations: %v for 20 round trips, %v for 200; want the same", few, many)
	}
}
