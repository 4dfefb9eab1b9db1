package loopbench_test

import (
	"fmt"
	"syscall"

	"github.com/loopbench/loopbench"
)

// A task reads and writes a socket with the coroutine forms, as an
// asyncio coroutine awaits loop.sock_recv_into and loop.sock_sendall.
func ExampleSockRecvInto() {
	fds, _ := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_STREAM, 0)
	for _, fd := range fds {
		syscall.SetNonblock(fd, true) // the task-style calls need non-blocking sockets
		syscall.CloseOnExec(fd)
		defer syscall.Close(fd)
	}
	v, err := loopbench.Run(loopbench.Config{}, func(t *loopbench.Task) (any, error) {
		if err := loopbench.SockSendAll(t, fds[0], []byte("hello")); err != nil {
			return nil, err
		}
		buf := make([]byte, 16)
		n, err := loopbench.SockRecvInto(t, fds[1], buf)
		return string(buf[:n]), err
	})
	fmt.Println(v, err)
	// Output: hello <nil>
}
