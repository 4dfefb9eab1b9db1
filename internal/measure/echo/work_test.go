package echo

import (
	"fmt"
	"io"
	"net"
	"sync/atomic"
	"testing"
	"time"

	"github.com/loopbench/loopbench"
)

// fakeClock advances a microsecond at every reading, so a busy loop of D
// reads it D/µs+1 times and ends whatever the machine's load.
type fakeClock struct{ reads atomic.Int64 }

func (c *fakeClock) now() time.Time {
	return time.Unix(0, 0).Add(time.Duration(c.reads.Add(1)) * time.Microsecond)
}

// requests is how many busy loops of d the clock's readings make.
func (c *fakeClock) requests(d time.Duration) int64 {
	return c.reads.Load() / int64(d/time.Microsecond+1)
}

// TestWorkPerRequest: the work is spent once per Size bytes of a
// connection, whatever the reads cut them into; once per read with Size 0;
// never with D 0.
func TestWorkPerRequest(t *testing.T) {
	const d = 10 * time.Microsecond
	cases := []struct {
		size  int
		d     time.Duration
		reads []int
		want  int64
	}{
		{100, d, []int{100, 100}, 2},
		{100, d, []int{30, 80, 290}, 4},
		{100, d, []int{99}, 0},
		{0, d, []int{30, 80, 290}, 3},
		{100, 0, []int{300}, 0},
	}
	for _, c := range cases {
		var clk fakeClock
		m := (&Work{D: c.d, Size: c.size, Now: clk.now}).meter()
		for _, n := range c.reads {
			m.received(n)
		}
		if got := clk.requests(d); got != c.want || clk.reads.Load()%int64(d/time.Microsecond+1) != 0 {
			t.Errorf("size %d, D %v, reads %v: %d clock readings, want %d busy loops of %v", c.size, c.d, c.reads, clk.reads.Load(), c.want, d)
		}
	}
}

// TestServersWork: each server style spends the work once per request of
// a client sending them one at a time, each in two writes.
func TestServersWork(t *testing.T) {
	const d, size, n = 5 * time.Microsecond, 64, 20
	styles := map[string]func(*loopbench.Loop, *Work) (net.Addr, error){
		"protocol": func(l *loopbench.Loop, w *Work) (net.Addr, error) {
			s, err := ServeProtocolWork(l, w, "tcp", "127.0.0.1:0")
			if err != nil {
				return nil, err
			}
			return s.Addr(), nil
		},
		"task": func(l *loopbench.Loop, w *Work) (net.Addr, error) {
			s, err := ServeTaskWork(l, w, "tcp", "127.0.0.1:0")
			if err != nil {
				return nil, err
			}
			return s.Addr(), nil
		},
		"stream": func(l *loopbench.Loop, w *Work) (net.Addr, error) {
			s, err := ServeStreamWork(l, w, "tcp", "127.0.0.1:0")
			if err != nil {
				return nil, err
			}
			return s.Addr(), nil
		},
	}
	for style, serve := range styles {
		t.Run(style, func(t *testing.T) {
			var clk fakeClock
			got := serveRequests(t, serve, &Work{D: d, Size: size, Now: clk.now}, size, n)
			if got != n || clk.requests(d) != n {
				t.Errorf("%d requests echoed, %d clock readings; want %d busy loops of %v", got, clk.reads.Load(), n, d)
			}
		})
	}
}

// serveRequests runs a server on a loop of its own and sends it n
// requests of size bytes, one at a time, each in two writes; it returns
// how many were echoed whole.
func serveRequests(t *testing.T, serve func(*loopbench.Loop, *Work) (net.Addr, error), w *Work, size, n int) int {
	t.Helper()
	l, err := loopbench.New(loopbench.Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	addr, err := serve(l, w)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- l.RunForever() }()
	defer func() {
		l.CallSoonThreadsafe(l.Stop)
		if err := <-done; err != nil {
			t.Error(err)
		}
	}()
	c, err := net.Dial("tcp", addr.String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	msg, back := make([]byte, size), make([]byte, size)
	echoed := 0
	for i := range n {
		msg[0] = byte(i)
		if _, err := c.Write(msg[:size/2]); err != nil {
			t.Fatal(err)
		}
		if _, err := c.Write(msg[size/2:]); err != nil {
			t.Fatal(err)
		}
		if _, err := io.ReadFull(c, back); err != nil {
			t.Fatal(err)
		}
		if back[0] == byte(i) {
			echoed++
		}
	}
	return echoed
}

// A server of known capacity: a request is 1024 bytes, each costs 100µs
// of the loop thread's CPU, so one loop serves 10,000 requests/s.
func ExampleWork() {
	l, _ := loopbench.New(loopbench.Config{})
	defer l.Close()
	w := &Work{D: 100 * time.Microsecond, Size: 1024}
	s, err := ServeProtocolWork(l, w, "tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer s.Close()
	fmt.Println("capacity:", int(time.Second/w.D), "requests/s on", s.Addr().Network())
	// Output: capacity: 10000 requests/s on tcp
}
