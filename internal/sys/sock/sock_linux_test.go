package sock

import (
	"testing"

	"golang.org/x/sys/unix"
)

// TestStopListening: a listening socket whose file another descriptor
// still holds (as an io_uring poll in flight does) goes on accepting
// after Close alone, and refuses connections once StopListening shut it
// down.
func TestStopListening(t *testing.T) {
	for _, stop := range []bool{false, true} {
		ln, err := unix.Socket(unix.AF_INET, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
		if err != nil {
			t.Fatal(err)
		}
		if err := unix.Bind(ln, &unix.SockaddrInet4{Addr: [4]byte{127, 0, 0, 1}}); err != nil {
			t.Fatal(err)
		}
		if err := unix.Listen(ln, 8); err != nil {
			t.Fatal(err)
		}
		sa, _ := unix.Getsockname(ln)
		held, err := unix.Dup(ln)
		if err != nil {
			t.Fatal(err)
		}
		if stop {
			StopListening(ln)
		}
		Close(ln)
		c, err := unix.Socket(unix.AF_INET, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
		if err != nil {
			t.Fatal(err)
		}
		err = unix.Connect(c, sa)
		unix.Close(c)
		unix.Close(held)
		if refused := err == unix.ECONNREFUSED; refused != stop {
			t.Errorf("StopListening %v, then Close, with the file held elsewhere: connect %v", stop, err)
		}
	}
}
