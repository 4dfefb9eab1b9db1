package loopbench_test

import (
	"fmt"
	"net"
	"os"
	"strings"
	"syscall"

	"github.com/loopbench/loopbench"
)

// A signal handler runs on the loop, in an iteration, like any callback.
func ExampleLoop_AddSignalHandler() {
	l, _ := loopbench.New(loopbench.Config{})
	defer l.Close()
	l.AddSignalHandler(syscall.SIGUSR1, func() {
		fmt.Println("SIGUSR1 on the loop")
		l.Stop()
	})
	l.CallSoon(func() { syscall.Kill(os.Getpid(), syscall.SIGUSR1) })
	l.RunForever()
	// Output: SIGUSR1 on the loop
}

// A child process with its stdin and stdout as streams, as asyncio's
// create_subprocess_exec and communicate.
func ExampleCreateSubprocessExec() {
	v, err := loopbench.Run(loopbench.Config{}, func(t *loopbench.Task) (any, error) {
		p, err := loopbench.CreateSubprocessExec(t, []string{"tr", "a-z", "A-Z"},
			loopbench.ProcessOptions{Stdin: loopbench.Pipe, Stdout: loopbench.Pipe})
		if err != nil {
			return nil, err
		}
		out, _, err := p.Communicate(t, []byte("shout\n"))
		code, _ := p.ReturnCode()
		return fmt.Sprintf("%q, exit %d", out, code), err
	})
	fmt.Println(v, err)
	// Output: "SHOUT\n", exit 0 <nil>
}

// A stream server and a stream client, as asyncio's start_server and
// open_connection, on a host name.
func ExampleStartServer() {
	v, err := loopbench.Run(loopbench.Config{}, func(t *loopbench.Task) (any, error) {
		srv, err := loopbench.StartServer(t.Loop(), "tcp", "localhost:0", func(t *loopbench.Task, r *loopbench.StreamReader, w *loopbench.StreamWriter) {
			line, _ := r.ReadLine(t)
			w.Write([]byte(strings.ToUpper(string(line))))
			w.Close()
		})
		if err != nil {
			return nil, err
		}
		defer srv.Close()
		_, port, _ := net.SplitHostPort(srv.Addr().String())
		r, w, err := loopbench.OpenConnection(t, "tcp", "localhost:"+port)
		if err != nil {
			return nil, err
		}
		w.Write([]byte("hello, streams\n"))
		return r.ReadLine(t)
	})
	fmt.Printf("%s %v\n", v, err)
	// Output: HELLO, STREAMS
	//  <nil>
}

// A UDP endpoint: a protocol gets each datagram and its sender.
func ExampleLoop_CreateDatagramEndpoint() {
	l, _ := loopbench.New(loopbench.Config{})
	defer l.Close()
	recv := &printDatagrams{stop: l.Stop}
	v, err := l.RunUntilComplete(l.CreateDatagramEndpoint("udp", "127.0.0.1:0", "", func() loopbench.DatagramProtocol { return recv }))
	if err != nil {
		panic(err)
	}
	c, _ := net.Dial("udp", v.(*loopbench.DatagramTransport).LocalAddr().String())
	defer c.Close()
	c.Write([]byte("one datagram"))
	l.RunForever()
	// Output: received "one datagram"
}

type printDatagrams struct {
	loopbench.DatagramProtocolBase
	stop func()
}

func (p *printDatagrams) DatagramReceived(data []byte, _ net.Addr) {
	fmt.Printf("received %q\n", data)
	p.stop()
}

// GetAddrInfo looks a host name up off the loop; a literal resolves at
// once.
func ExampleLoop_GetAddrInfo() {
	l, _ := loopbench.New(loopbench.Config{})
	defer l.Close()
	v, err := l.RunUntilComplete(l.GetAddrInfo("127.0.0.1", "http"))
	fmt.Println(v, err)
	// Output: [127.0.0.1:80] <nil>
}
