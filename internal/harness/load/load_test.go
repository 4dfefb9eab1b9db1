package load

import (
	"context"
	"io"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// stallServer is an echo server that, once, stops answering every
// connection for stall, starting after the given delay.
func stallServer(t *testing.T, after, stall time.Duration) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	// Answers wait until stallEnd while the stall lasts.
	var stallEnd atomic.Int64
	time.AfterFunc(after, func() { stallEnd.Store(time.Now().Add(stall).UnixNano()) })
	var wg sync.WaitGroup
	t.Cleanup(func() { ln.Close(); wg.Wait() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				defer c.Close()
				buf := make([]byte, 4096)
				for {
					n, err := c.Read(buf)
					if err != nil {
						return
					}
					if d := time.Until(time.Unix(0, stallEnd.Load())); d > 0 {
						time.Sleep(d)
					}
					if _, err := c.Write(buf[:n]); err != nil {
						return
					}
				}
			}()
		}
	}()
	return ln.Addr().String()
}

// TestStallShowsOnlyWhenCorrected: a 50 ms stall at 2000 req/s delays
// about a hundred scheduled requests (5 %), so the corrected p99 shows
// it, while each connection's one delayed send is far below 1 % of the
// uncorrected samples.
func TestStallShowsOnlyWhenCorrected(t *testing.T) {
	addr := stallServer(t, 400*time.Millisecond, 50*time.Millisecond)
	rep, err := Run(context.Background(), Config{Addr: addr, Conns: 4, Size: 64, Warmup: 100 * time.Millisecond, Duration: time.Second, Rate: 2000})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Requests < 1000 || rep.Errors != 0 {
		t.Fatalf("report %+v", rep)
	}
	if rep.Corrected.P99 < 30*time.Millisecond {
		t.Errorf("corrected p99 %v does not show the 50 ms stall", rep.Corrected.P99)
	}
	if rep.Uncorrected.P99 >= rep.Corrected.P99/2 {
		t.Errorf("uncorrected p99 %v is not far below the corrected %v", rep.Uncorrected.P99, rep.Corrected.P99)
	}
	if rep.Uncorrected.Max < 30*time.Millisecond {
		t.Errorf("uncorrected max %v: the requests in flight during the stall saw it", rep.Uncorrected.Max)
	}
}

func TestClosedLoopAndLimit(t *testing.T) {
	addr := stallServer(t, time.Hour, 0)
	rep, err := Run(context.Background(), Config{Addr: addr, Conns: 2, Size: 1024, Duration: 10 * time.Second, Requests: 500})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Requests != 500 || rep.Offered != 0 || rep.Behind || rep.Corrected != rep.Uncorrected {
		t.Fatalf("closed loop bounded by 500 requests: %+v", rep)
	}
}

func TestUnreachable(t *testing.T) {
	ln, _ := net.Listen("tcp", "127.0.0.1:0")
	addr := ln.Addr().String()
	ln.Close()
	_, err := Run(context.Background(), Config{Addr: addr, Conns: 3, Size: 8, Duration: time.Second})
	if err == nil || !strings.Contains(err.Error(), "cannot connect to "+addr) {
		t.Fatalf("Run against a closed port = %v", err)
	}
}

// TestPartialConnectionFailure: a connection that cannot be opened at
// the start is dialled again for its first request, and its requests are
// measured with the others'; a failure before the window is no error.
func TestPartialConnectionFailure(t *testing.T) {
	addr := stallServer(t, time.Hour, 0)
	var mu sync.Mutex
	n := 0
	dial := func(a string) (net.Conn, error) {
		mu.Lock()
		n++
		fail := n == 2
		mu.Unlock()
		if fail {
			return nil, io.ErrUnexpectedEOF
		}
		return net.Dial("tcp", a)
	}
	rep, err := Run(context.Background(), Config{Addr: addr, Conns: 3, Size: 8, Warmup: 20 * time.Millisecond, Duration: 100 * time.Millisecond, Rate: 300, Dial: dial})
	if err != nil || rep.Errors != 0 || rep.Scheduled != 30 || rep.Answered+rep.Unsent != 30 || rep.Answered == 0 {
		t.Fatalf("one connection failed to open: %+v, %v", rep, err)
	}
	if mu.Lock(); n != 4 {
		t.Errorf("%d dials, want 4: the failed connection dialled again", n)
	}
	mu.Unlock()
}

// TestUnusableConnection: a connection that opens but cannot be taken
// onto the loop (here one without a descriptor) is a failed dial, like a
// refused one: the connection dials again for its first request, and
// the run goes on.
func TestUnusableConnection(t *testing.T) {
	addr := faultServer(t, echoN(0, nil))
	var mu sync.Mutex
	n := 0
	dial := func(a string) (net.Conn, error) {
		mu.Lock()
		n++
		pipe := n == 2
		mu.Unlock()
		if pipe {
			c, other := net.Pipe()
			other.Close()
			return c, nil
		}
		return net.Dial("tcp", a)
	}
	rep, err := Run(context.Background(), Config{Addr: addr, Conns: 3, Size: 64, Duration: time.Minute, Requests: 300, Dial: dial})
	if err != nil || rep.Errors != 0 || rep.Answered < 300 {
		t.Fatalf("one connection could not be used: %+v, %v", rep, err)
	}
	if mu.Lock(); n != 4 {
		t.Errorf("%d dials, want 4: the unusable connection dialled again", n)
	}
	mu.Unlock()
}
