package loopbench_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"

	"github.com/loopbench/loopbench"
)

// ReadUntil with several separators stops at the match that ends first,
// as Python 3.13's readuntil((b"\r\n", b"\n")): lines ended either way.
func ExampleStreamReader_ReadUntil() {
	loopbench.Run(loopbench.Config{}, func(t *loopbench.Task) (any, error) {
		r := loopbench.NewStreamReader(t.Loop(), 0)
		r.FeedData([]byte("GET / HTTP/1.0\r\nHost: example\nlast"))
		r.FeedEOF()
		for {
			line, err := r.ReadUntil(t, []byte("\r\n"), []byte("\n"))
			if inc, ok := errors.AsType[*loopbench.IncompleteReadError](err); ok {
				fmt.Printf("end, %q left\n", inc.Partial)
				return nil, nil
			}
			fmt.Printf("%q\n", line)
		}
	})
	// Output:
	// "GET / HTTP/1.0\r\n"
	// "Host: example\n"
	// end, "last" left
}

// WithStreamLimit is asyncio's limit= of start_server and
// open_connection: a line longer than the limit is a LimitOverrunError.
func ExampleWithStreamLimit() {
	loopbench.Run(loopbench.Config{}, func(t *loopbench.Task) (any, error) {
		srv, err := loopbench.StartServer(t.Loop(), "tcp", "127.0.0.1:0", func(t *loopbench.Task, r *loopbench.StreamReader, w *loopbench.StreamWriter) {
			w.Write([]byte("a line of more than sixteen bytes\nshort\n"))
			w.Close()
		})
		if err != nil {
			return nil, err
		}
		defer srv.Close()
		r, w, err := loopbench.OpenConnection(t, "tcp", srv.Addr().String(), loopbench.WithStreamLimit(16))
		if err != nil {
			return nil, err
		}
		defer w.Close()
		for range 2 {
			line, err := r.ReadLine(t)
			fmt.Printf("%q %v\n", line, err)
		}
		return nil, nil
	})
	// Output:
	// "" loopbench: separator not found in the first 33 bytes, more than the stream's limit
	// "short\n" <nil>
}

// A client that ends its request with WriteEOF, where the transport can,
// and then reads the whole reply.
func ExampleStreamWriter_CanWriteEOF() {
	v, err := loopbench.Run(loopbench.Config{}, func(t *loopbench.Task) (any, error) {
		srv, err := loopbench.StartServer(t.Loop(), "tcp", "127.0.0.1:0", func(t *loopbench.Task, r *loopbench.StreamReader, w *loopbench.StreamWriter) {
			req, _ := r.Read(t, -1) // the whole request: up to the client's EOF
			w.Write([]byte(fmt.Sprintf("got %d bytes", len(req))))
			w.Close()
		})
		if err != nil {
			return nil, err
		}
		defer srv.Close()
		r, w, err := loopbench.OpenConnection(t, "tcp", srv.Addr().String())
		if err != nil {
			return nil, err
		}
		defer w.Close()
		w.Write([]byte("request"))
		if !w.CanWriteEOF() {
			return nil, errors.New("cannot end the request")
		}
		w.WriteEOF()
		reply, err := r.Read(t, -1)
		return string(reply), err
	})
	fmt.Println(v, err)
	// Output: got 7 bytes <nil>
}

// ProcessOptions.Limit is asyncio's limit= of create_subprocess_exec: the
// limit of the child's output streams.
func ExampleProcessOptions() {
	loopbench.Run(loopbench.Config{}, func(t *loopbench.Task) (any, error) {
		p, err := loopbench.CreateSubprocessExec(t, []string{"printf", "0123456789;"},
			loopbench.ProcessOptions{Stdout: loopbench.Pipe, Limit: 4})
		if err != nil {
			return nil, err
		}
		_, err = p.Stdout.ReadUntil(t, []byte(";"))
		fmt.Println(err)
		out, _, err := p.Communicate(t, nil) // the data stays in the stream
		fmt.Printf("%q %v\n", out, err)
		return nil, nil
	})
	// Output:
	// loopbench: separator not found in the first 10 bytes, more than the stream's limit
	// "0123456789;" <nil>
}

// A write to a peer that has closed fails with an error that is both
// ErrConnectionLost and the errno (syscall.EPIPE here, ECONNRESET after a
// reset), as asyncio's BrokenPipeError and ConnectionResetError are both
// ConnectionError. A Unix socket shows the broken pipe at the first write.
func ExampleErrConnectionLost() {
	dir, err := os.MkdirTemp("", "lb")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	loopbench.Run(loopbench.Config{}, func(t *loopbench.Task) (any, error) {
		srv, err := loopbench.StartServer(t.Loop(), "unix", filepath.Join(dir, "s"), func(t *loopbench.Task, r *loopbench.StreamReader, w *loopbench.StreamWriter) {
			w.Close()
		})
		if err != nil {
			return nil, err
		}
		defer srv.Close()
		r, w, err := loopbench.OpenConnection(t, "unix", srv.Addr().String())
		if err != nil {
			return nil, err
		}
		defer w.Close()
		_, err = r.Read(t, 10) // the server closed
		fmt.Println(err)
		err = w.Write([]byte("late"))
		fmt.Println(err)
		fmt.Println(errors.Is(err, loopbench.ErrConnectionLost), errors.Is(err, syscall.EPIPE))
		return nil, nil
	})
	// Output:
	// EOF
	// loopbench: connection lost: write: broken pipe
	// true true
}
