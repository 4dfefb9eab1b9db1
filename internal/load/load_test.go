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

func TestPartialConnectionFailure(t *testing.T) {
	addr := stallServer(t, time.Hour, 0)
	n := 0
	dial := func(a string) (net.Conn, error) {
		if n++; n == 2 {
			return nil, io.ErrUnexpectedEOF
		}
		return net.Dial("tcp", a)
	}
	rep, err := Run(context.Background(), Config{Addr: addr, Conns: 3, Size: 8, Duration: 50 * time.Millisecond, Dial: dial})
	if err != nil || rep.Errors != 1 || len(rep.ErrorTexts) != 1 || rep.Requests == 0 {
		t.Fatalf("one failed connection: %+v, %v", rep, err)
	}
}
