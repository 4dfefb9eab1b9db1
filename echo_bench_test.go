package loopbench_test

import (
	"testing"

	"github.com/loopbench/loopbench"
	"github.com/loopbench/loopbench/internal/conform/seltest"
	"github.com/loopbench/loopbench/internal/measure/echo"
)

// BenchmarkSockEcho is the task style's round trip on one loop: a task
// sends 1 KiB over a socketpair and awaits the echo, which a second task
// reads and sends back, as asyncio's users write an echo server. Both
// ends are task-style, so an op is two requests' worth of socket
// operations. form=future awaits the futures of the Loop methods
// (t.Await(l.SockRecvInto(fd, buf))), form=task calls the coroutine
// forms (SockRecvInto(t, fd, buf)).
func BenchmarkSockEcho(b *testing.B) {
	b.Run("form=future", func(b *testing.B) { sockEcho(b, futureForm) })
	b.Run("form=task", func(b *testing.B) { sockEcho(b, taskForm) })
}

// sockForm is how a task reads and writes a socket.
type sockForm struct {
	recv func(t *loopbench.Task, fd int, buf []byte) (int, error)
	send func(t *loopbench.Task, fd int, data []byte) error
}

var (
	futureForm = sockForm{
		recv: func(t *loopbench.Task, fd int, buf []byte) (int, error) {
			return loopbench.AwaitValue[int](t, t.Loop().SockRecvInto(fd, buf))
		},
		send: func(t *loopbench.Task, fd int, data []byte) error {
			_, err := t.Await(t.Loop().SockSendAll(fd, data))
			return err
		},
	}
	taskForm = sockForm{recv: loopbench.SockRecvInto, send: loopbench.SockSendAll}
)

func sockEcho(b *testing.B, form sockForm) {
	l, err := loopbench.New(loopbench.Config{})
	if err != nil {
		b.Fatal(err)
	}
	defer l.Close()
	c, s := seltest.Pair(b)
	l.CreateTask(func(t *loopbench.Task) (any, error) {
		buf := make([]byte, 1024)
		for {
			n, err := form.recv(t, s, buf)
			if err != nil || n == 0 {
				return nil, err
			}
			if err := form.send(t, s, buf[:n]); err != nil {
				return nil, err
			}
		}
	})
	msg, buf := make([]byte, 1024), make([]byte, 1024)
	client := l.CreateTask(func(t *loopbench.Task) (any, error) {
		b.ReportAllocs()
		b.ResetTimer()
		for range b.N {
			if err := form.send(t, c, msg); err != nil {
				return nil, err
			}
			for got := 0; got < len(msg); {
				n, err := form.recv(t, c, buf[got:])
				if err != nil {
					return nil, err
				}
				got += n
			}
		}
		b.StopTimer()
		return nil, nil
	})
	if _, err := l.RunUntilComplete(client); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkStreamEcho is the stream style's round trip on one loop, over
// TCP on the loopback interface: a task writes 1 KiB with a StreamWriter
// and reads the echo with ReadExactly; the server's task reads with Read
// and answers with Write and Drain, as the stream-style echo server does.
func BenchmarkStreamEcho(b *testing.B) {
	l, err := loopbench.New(loopbench.Config{})
	if err != nil {
		b.Fatal(err)
	}
	defer l.Close()
	srv, err := loopbench.StartServer(l, "tcp", "127.0.0.1:0", func(t *loopbench.Task, r *loopbench.StreamReader, w *loopbench.StreamWriter) {
		defer w.Close()
		for {
			data, err := r.Read(t, 1024)
			if err != nil || w.Write(data) != nil || w.Drain(t) != nil {
				return
			}
		}
	})
	if err != nil {
		b.Fatal(err)
	}
	defer srv.Close()
	msg := make([]byte, 1024)
	client := l.CreateTask(func(t *loopbench.Task) (any, error) {
		r, w, err := loopbench.OpenConnection(t, "tcp", srv.Addr().String())
		if err != nil {
			return nil, err
		}
		defer w.Close()
		b.ReportAllocs()
		b.ResetTimer()
		for range b.N {
			if err := w.Write(msg); err != nil {
				return nil, err
			}
			if _, err := r.ReadExactly(t, len(msg)); err != nil {
				return nil, err
			}
		}
		b.StopTimer()
		return nil, nil
	})
	if _, err := l.RunUntilComplete(client); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkProtocolEcho is the protocol style's round trip on one loop,
// over TCP on the loopback interface, for the other styles to be read
// against: the client writes 1 KiB when the last answer is whole, the
// server's protocol writes back what it receives. answer=now writes from
// DataReceived, in the iteration that read the data. answer=next (both
// ends) copies what is to be written and writes it from a callback queued
// with CallSoon: the order a task's wakeup has, on the next iteration,
// after that iteration's zero-timeout poll. answer=coroutine has that
// callback resume a coroutine (iter.Pull) that writes and yields: a
// task's two switches as well. The stream and task styles pay what
// answer=coroutine adds, and their own work besides.
func BenchmarkProtocolEcho(b *testing.B) {
	for _, mode := range []struct {
		name string
		when echo.Answer
	}{{"now", echo.Now}, {"next", echo.NextIteration}, {"coroutine", echo.Coroutine}} {
		b.Run("answer="+mode.name, func(b *testing.B) { protocolEcho(b, mode.when) })
	}
}

func protocolEcho(b *testing.B, when echo.Answer) {
	l, err := loopbench.New(loopbench.Config{})
	if err != nil {
		b.Fatal(err)
	}
	defer l.Close()
	var served []*echo.Answerer
	defer func() {
		for _, a := range served {
			a.Stop()
		}
	}()
	srv, err := l.CreateServer("tcp", "127.0.0.1:0", func() loopbench.BaseProtocol {
		served = append(served, echo.NewAnswerer(l, when))
		return &echoBack{a: served[len(served)-1]}
	})
	if err != nil {
		b.Fatal(err)
	}
	defer srv.Close()
	c := &echoClient{a: echo.NewAnswerer(l, when), msg: make([]byte, 1024), n: b.N, done: l.CreateFuture()}
	defer c.a.Stop()
	if _, err := l.RunUntilComplete(l.CreateTask(func(t *loopbench.Task) (any, error) {
		_, err := t.Await(l.CreateConnection("tcp", srv.Addr().String(), func() loopbench.BaseProtocol { return c }))
		return nil, err
	})); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	c.a.Write(c.msg)
	if _, err := l.RunUntilComplete(c.done); err != nil {
		b.Fatal(err)
	}
	b.StopTimer()
	c.t.Close()
}

// echoBack writes back what it receives.
type echoBack struct {
	loopbench.ProtocolBase
	a *echo.Answerer
}

func (p *echoBack) ConnectionMade(t *loopbench.Transport) { p.a.Bind(t) }
func (p *echoBack) DataReceived(data []byte)              { p.a.Write(data) }
func (p *echoBack) EOFReceived() bool                     { return false }

// echoClient sends msg n times, each when the last answer is whole.
type echoClient struct {
	loopbench.ProtocolBase
	a    *echo.Answerer
	t    *loopbench.Transport
	msg  []byte
	got  int
	n    int
	done *loopbench.Future
}

func (p *echoClient) ConnectionMade(t *loopbench.Transport) { p.t = t; p.a.Bind(t) }
func (p *echoClient) EOFReceived() bool                     { return false }
func (p *echoClient) DataReceived(data []byte) {
	if p.got += len(data); p.got < len(p.msg) {
		return
	}
	p.got = 0
	if p.n--; p.n > 0 {
		p.a.Write(p.msg)
	} else {
		p.done.SetResult(nil)
	}
}
