package looptest

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/signal"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/loopbench/loopbench"
	"github.com/loopbench/loopbench/internal/measure/echo"
	"github.com/loopbench/loopbench/internal/sys/sock"
	"golang.org/x/sys/unix"
)

// NetLeavesNothing runs echo traffic through the three server styles, a
// datagram endpoint and a child process, leaves some of each open, closes
// the loop, and checks that no fd or goroutine is left. It counts
// process-wide, so it must not run in parallel.
func NetLeavesNothing(t *testing.T, cfg loopbench.Config) {
	// os/signal starts one goroutine of its own, for good, on its first
	// use: start it before counting.
	prime := make(chan os.Signal, 1)
	signal.Notify(prime, syscall.SIGUSR2)
	signal.Stop(prime)
	before := holding(t)
	func() {
		l, err := loopbench.New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		defer l.Close()
		ps, err := echo.ServeProtocol(l, "tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		ts, err := echo.ServeTask(l, "tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		ss, err := echo.ServeStream(l, "tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		for _, addr := range []string{ps.Addr().String(), ts.Addr().String(), ss.Addr().String()} {
			testManyConns(t, l, addr)
		}
		// A connection left open when the loop closes.
		whileClient(t, l, func() error { return echoAndClose(ps.Addr().String(), []byte("left open"), false) })
		// A datagram endpoint, a signal handler and a running child, too.
		v, err := complete(t, l, echo.ServeUDP(l, "udp", "127.0.0.1:0"))
		if err != nil {
			t.Fatal(err)
		}
		whileClient(t, l, func() error { return udpClient(v.(*loopbench.DatagramTransport).LocalAddr(), 3, []byte("udp")) })
		guard(t, syscall.SIGUSR2)
		l.AddSignalHandler(syscall.SIGUSR2, func() {})
		if _, err := complete(t, l, l.SubprocessExec(func() loopbench.SubprocessProtocol { return loopbench.SubprocessProtocolBase{} },
			[]string{"sleep", "30"}, loopbench.ProcessOptions{})); err != nil {
			t.Fatal(err)
		}
	}()
	before.leftNothing(t, "after Close")
}

// bufProto is a BufferedProtocol that collects everything into its own
// buffer and, at end of stream, keeps the transport open to answer with
// the byte count (a half-close).
type bufProto struct {
	t     *loopbench.Transport
	buf   []byte
	n     int
	total int
	lost  chan error
}

func (p *bufProto) ConnectionMade(t *loopbench.Transport) { p.t = t }
func (p *bufProto) GetBuffer(int) []byte                  { return p.buf[p.n:] }
func (p *bufProto) BufferUpdated(n int) {
	p.total += n
	if p.n += n; p.n == len(p.buf) {
		p.n = 0
	}
}
func (p *bufProto) EOFReceived() bool {
	p.t.Write([]byte(fmt.Sprint(p.total)))
	p.t.Close()
	return true
}
func (p *bufProto) ConnectionLost(err error) { p.lost <- err }
func (p *bufProto) PauseWriting()            {}
func (p *bufProto) ResumeWriting()           {}

// testBufferedHalfClose: a BufferedProtocol reads into its own 100-byte
// buffer; the client half-closes and still gets the answer.
func testBufferedHalfClose(t *testing.T, l *loopbench.Loop) {
	p := &bufProto{buf: make([]byte, 100), lost: make(chan error, 1)}
	s := startServer(t, l, p)
	whileClient(t, l, func() error {
		c, err := net.Dial("tcp", s.Addr().String())
		if err != nil {
			return err
		}
		defer c.Close()
		c.SetDeadline(time.Now().Add(30 * time.Second))
		if _, err := c.Write(pattern(12345)); err != nil {
			return err
		}
		c.(*net.TCPConn).CloseWrite()
		got, err := io.ReadAll(c)
		if err != nil || string(got) != "12345" {
			return fmt.Errorf("answer %q, %v; want 12345", got, err)
		}
		return nil
	})
	if err := <-p.lost; err != nil {
		t.Fatalf("ConnectionLost(%v)", err)
	}
}

// testAbortAndWriteAfterReset: Abort drops buffered data and closes at
// once; writing to a peer that reset ends the transport with an error,
// and Write after that reports the transport closing.
func testAbortAndWriteAfterReset(t *testing.T, l *loopbench.Loop) {
	r := newLostRecorder()
	s := startServer(t, l, r)
	whileClient(t, l, func() error { return echoAndClose(s.Addr().String(), []byte("x"), true) })
	tr := <-r.made
	time.Sleep(10 * time.Millisecond) // let the reset arrive
	var werr error
	for i := 0; i < 100 && werr == nil; i++ {
		werr = tr.Write(pattern(64 << 10))
	}
	lost, err := complete(t, l, futureOf(l, r.lost))
	if le, _ := lost.(error); err != nil || le == nil || werr == nil {
		t.Fatalf("writing to a reset peer: Write %v, ConnectionLost(%v)", werr, lost)
	}
	// Abort with data buffered.
	r2 := newLostRecorder()
	s2 := startServer(t, l, r2)
	c, err := net.Dial("tcp", s2.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	tr2, err := complete(t, l, futureOf(l, r2.made))
	if err != nil {
		t.Fatal(err)
	}
	t2 := tr2.(*loopbench.Transport)
	for t2.WriteBufferSize() == 0 {
		t2.Write(pattern(1 << 20)) // the client does not read: the buffer fills
	}
	t2.Abort()
	if err := t2.Write([]byte("more")); !errors.Is(err, loopbench.ErrTransportClosed) {
		t.Fatalf("Write after Abort = %v", err)
	}
	if lost, err := complete(t, l, futureOf(l, r2.lost)); lost != nil || err != nil {
		t.Fatalf("Abort: ConnectionLost(%v)", lost)
	}
}

// testTaskClient: a task connects with SockConnect and talks to the gonet
// echo server with SockSendAll and SockRecv.
func testTaskClient(t *testing.T, l *loopbench.Loop) {
	g, err := echo.ServeGonet("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	fd, err := sock.Socket(syscall.AF_INET)
	if err != nil {
		t.Fatal(err)
	}
	defer syscall.Close(fd)
	task := l.CreateTask(func(tk *loopbench.Task) (any, error) {
		if _, err := tk.Await(l.SockConnect(fd, "tcp", g.Addr().String())); err != nil {
			return nil, err
		}
		msg := pattern(300 << 10)
		if _, err := tk.Await(l.SockSendAll(fd, msg)); err != nil {
			return nil, err
		}
		var got []byte
		for len(got) < len(msg) {
			v, err := tk.Await(l.SockRecv(fd, 64<<10))
			if err != nil {
				return nil, err
			}
			if len(v.([]byte)) == 0 {
				return nil, errors.New("early end of stream")
			}
			got = append(got, v.([]byte)...)
		}
		if !bytes.Equal(got, msg) {
			return nil, errors.New("echo differs")
		}
		return nil, nil
	})
	if _, err := complete(t, l, task); err != nil {
		t.Fatal(err)
	}
}

// testUseAfterLoopClose: servers and transports used after their loop was
// closed neither panic nor close their (already closed) fds again.
func testUseAfterLoopClose(t *testing.T, l *loopbench.Loop) {
	r := newLostRecorder()
	s := startServer(t, l, r)
	whileClient(t, l, func() error { return echoAndClose(s.Addr().String(), []byte("x"), false) })
	tr := <-r.made
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	s.Close()
	tr.Close()
	tr.Abort()
	if err := tr.Write([]byte("late")); !errors.Is(err, loopbench.ErrTransportClosed) {
		t.Fatalf("Write after the loop closed = %v", err)
	}
}

// blockingPair returns a connected socketpair in blocking mode, closed at
// the end of the test.
func blockingPair(t *testing.T) (a, b int) {
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM, 0)
	if err != nil {
		t.Fatal(err)
	}
	unix.CloseOnExec(fds[0])
	unix.CloseOnExec(fds[1])
	t.Cleanup(func() { unix.Close(fds[0]); unix.Close(fds[1]) })
	return fds[0], fds[1]
}

// testSockBlockingFd: SockRecv on a caller's fd left in blocking mode
// blocks the loop, as asyncio's does, but nothing else: a garbage
// collection on another goroutine completes meanwhile, and only then does
// that goroutine send what the loop waits for. (A raw system call would
// keep the blocked goroutine from stopping for the collector: the
// collection, and the whole process, would wait forever.) In debug mode
// the fd is refused at once, as asyncio's debug mode refuses it.
func testSockBlockingFd(t *testing.T, l *loopbench.Loop) {
	a, b := blockingPair(t)
	v, err := complete(t, l, l.CreateTask(func(t *loopbench.Task) (any, error) {
		go func() {
			runtime.GC()
			unix.Write(b, []byte("x"))
		}()
		return t.Await(l.SockRecv(a, 1))
	}))
	if err != nil || string(v.([]byte)) != "x" {
		t.Fatalf("SockRecv on a blocking fd = %q, %v", v, err)
	}
	cfg := l.Config()
	cfg.Debug = true
	dl := New(t, cfg)
	for name, f := range map[string]*loopbench.Future{
		"SockRecv":     dl.SockRecv(a, 1),
		"SockRecvInto": dl.SockRecvInto(a, make([]byte, 1)),
		"SockSendAll":  dl.SockSendAll(a, []byte("x")),
		"SockAccept":   dl.SockAccept(a),
		"SockConnect":  dl.SockConnect(a, "unix", "/nonexistent"),
	} {
		if _, err := f.Result(); err == nil || !strings.Contains(err.Error(), "blocking mode") {
			t.Errorf("%s on a blocking fd in debug mode = %v, want it refused at once", name, err)
		}
	}
}
