package loopbench

import (
	"testing"

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
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_NONBLOCK|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(fds[0])
	defer unix.Close(fds[1])
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
