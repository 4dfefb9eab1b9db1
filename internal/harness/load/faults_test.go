package load

import (
	"context"
	"io"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/loopbench/loopbench/internal/measure/loadresult"
)

// faultServer accepts connections and hands each to serve, in its own
// goroutine; the test's cleanup closes the listener and every connection.
func faultServer(t testing.TB, serve func(c net.Conn)) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var conns []net.Conn
	var wg sync.WaitGroup
	t.Cleanup(func() {
		ln.Close()
		mu.Lock()
		for _, c := range conns {
			c.Close()
		}
		mu.Unlock()
		wg.Wait()
	})
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
			wg.Add(1)
			go func() {
				defer wg.Done()
				defer c.Close()
				serve(c)
			}()
		}
	}()
	return ln.Addr().String()
}

// echoN echoes 64-byte requests, calling before each reply; it stops
// after n replies (0: never) and then closes the connection.
func echoN(n int, before func()) func(c net.Conn) {
	return func(c net.Conn) {
		buf := make([]byte, 64)
		for i := 0; n == 0 || i < n; i++ {
			if _, err := io.ReadFull(c, buf); err != nil {
				return
			}
			if before != nil {
				before()
			}
			if _, err := c.Write(buf); err != nil {
				return
			}
		}
	}
}

// runBounded runs cfg and fails the test unless Run returns by the end of
// the window plus the timeout, with a generous margin for a loaded machine.
func runBounded(t *testing.T, ctx context.Context, cfg Config) loadresult.Result {
	t.Helper()
	start := time.Now()
	rep, err := Run(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if took, bound := time.Since(start), cfg.Warmup+cfg.Duration+cfg.Timeout+3*time.Second; took > bound {
		t.Fatalf("the run took %v, more than warmup+duration+timeout plus 3 s (%v)", took, bound)
	}
	checkSeries(t, cfg, rep)
	return rep
}

func onlyErrors(t *testing.T, rep loadresult.Result, want ...string) {
	t.Helper()
	if rep.Errors == 0 {
		t.Fatalf("no errors: %+v", rep)
	}
	var sum int64
	for _, e := range rep.ErrorTexts {
		sum += e.Count
		ok := false
		for _, w := range want {
			ok = ok || strings.Contains(e.Text, w)
		}
		if !ok {
			t.Errorf("unexpected error %dx %q (want one of %q)", e.Count, e.Text, want)
		}
	}
	if sum != rep.Errors {
		t.Errorf("grouped errors add up to %d, total %d", sum, rep.Errors)
	}
}

// TestStalledServer: a server that reads and never replies ends the run
// by the window's end plus the timeout; every request is a timeout error.
func TestStalledServer(t *testing.T) {
	addr := faultServer(t, func(c net.Conn) { io.Copy(io.Discard, c) })
	rep := runBounded(t, context.Background(), Config{Addr: addr, Conns: 2, Size: 64, Duration: 500 * time.Millisecond, Timeout: 150 * time.Millisecond})
	if rep.Requests != 0 || rep.Errors < 2 {
		t.Fatalf("requests %d errors %d", rep.Requests, rep.Errors)
	}
	onlyErrors(t, rep, "read: i/o timeout")
}

// TestResettingServer: connections reset on their first request are
// errors, dialled again.
func TestResettingServer(t *testing.T) {
	addr := faultServer(t, func(c net.Conn) {
		io.ReadFull(c, make([]byte, 64))
		c.(*net.TCPConn).SetLinger(0)
	})
	rep := runBounded(t, context.Background(), Config{Addr: addr, Conns: 2, Size: 64, Duration: 200 * time.Millisecond, Timeout: time.Second})
	if rep.Requests != 0 || rep.Errors < 2 {
		t.Fatalf("requests %d errors %d", rep.Requests, rep.Errors)
	}
	onlyErrors(t, rep, "connection reset by peer", "EOF", "broken pipe")
}

// TestServerClosesAfterN: a server that closes after 5 replies costs one
// error per 5 requests, and the connection is dialled again each time.
// The request count ends the run; its duration only bounds it, long
// enough for a loaded machine.
func TestServerClosesAfterN(t *testing.T) {
	addr := faultServer(t, echoN(5, nil))
	rep := runBounded(t, context.Background(), Config{Addr: addr, Conns: 1, Size: 64, Duration: 10 * time.Second, Timeout: time.Second, Requests: 50})
	if rep.Requests != 50 || rep.Errors != 9 {
		t.Fatalf("requests %d errors %d (want 50 and 9: one EOF after each 5 but the last)", rep.Requests, rep.Errors)
	}
	// The server's close is a FIN, or a reset when the next request was
	// already in its buffer.
	onlyErrors(t, rep, "read: EOF", "connection reset by peer")
	if r := rep.ErrorRate(); r < 0.15 || r > 0.16 {
		t.Fatalf("error rate %.3f, want 9/59", r)
	}
}

// TestWrongLength: replies one byte too long put the next reply out of
// step: every second request is an error, as a reply that is not its echo.
func TestWrongLength(t *testing.T) {
	addr := faultServer(t, func(c net.Conn) {
		buf := make([]byte, 64)
		for {
			if _, err := io.ReadFull(c, buf); err != nil {
				return
			}
			if _, err := c.Write(append(buf, 'x')); err != nil {
				return
			}
		}
	})
	rep := runBounded(t, context.Background(), Config{Addr: addr, Conns: 1, Size: 64, Duration: 10 * time.Second, Timeout: time.Second, Requests: 20})
	if rep.Requests != 20 || rep.Errors != 19 {
		t.Fatalf("requests %d errors %d (want 20 and 19)", rep.Requests, rep.Errors)
	}
	onlyErrors(t, rep, "reply is not the echo of the request")
}

// TestOverloadedByRate: a server that takes 2 ms a reply, asked for 10⁵
// req/s over 2 connections, answers about 1000 req/s. The responses that
// arrive in the window are counted, whether their requests were scheduled
// in the warmup or not, so a warmup does not empty the window (it used
// to: "0 requests") and both runs report the server's rate.
func TestOverloadedByRate(t *testing.T) {
	addr := faultServer(t, echoN(0, func() { time.Sleep(2 * time.Millisecond) }))
	cfg := Config{Addr: addr, Conns: 2, Size: 64, Duration: 400 * time.Millisecond, Timeout: 5 * time.Second, Rate: 100_000}
	cold := runBounded(t, context.Background(), cfg)
	cfg.Warmup = 300 * time.Millisecond
	warm := runBounded(t, context.Background(), cfg)
	for _, rep := range []loadresult.Result{cold, warm} {
		if rep.Requests < 50 || !rep.Behind || rep.Errors != 0 {
			t.Fatalf("requests %d behind %v errors %d", rep.Requests, rep.Behind, rep.Errors)
		}
		if rep.Corrected.Max < 100*time.Millisecond {
			t.Errorf("corrected max %v: the backlog's intended times are not measured", rep.Corrected.Max)
		}
	}
	if r := warm.Achieved / cold.Achieved; r < 0.33 || r > 3 {
		t.Fatalf("achieved %.0f req/s with a warmup, %.0f without: the warmup changed the rate", warm.Achieved, cold.Achieved)
	}
}

// TestInterruptedInWarmup: stopped in the warmup, the run measured
// nothing: no negative window, and it says so.
func TestInterruptedInWarmup(t *testing.T) {
	addr := faultServer(t, echoN(0, nil))
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	rep := runBounded(t, ctx, Config{Addr: addr, Conns: 2, Size: 64, Warmup: 2 * time.Second, Duration: 2 * time.Second, Timeout: time.Second})
	if !rep.Interrupted || rep.Requests != 0 || rep.Elapsed != 0 || rep.Errors != 0 {
		t.Fatalf("interrupted %v requests %d elapsed %v errors %d", rep.Interrupted, rep.Requests, rep.Elapsed, rep.Errors)
	}
}

// TestInterruptedInWindow: stopped in the window, the run reports the part
// it covered, with its requests and no errors from its own stop.
func TestInterruptedInWindow(t *testing.T) {
	addr := faultServer(t, echoN(0, nil))
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	rep := runBounded(t, ctx, Config{Addr: addr, Conns: 2, Size: 64, Duration: 5 * time.Second, Timeout: time.Second})
	if !rep.Interrupted || rep.Requests == 0 || rep.Elapsed <= 0 || rep.Elapsed >= rep.Duration || rep.Errors != 0 {
		t.Fatalf("interrupted %v requests %d elapsed %v errors %d %v", rep.Interrupted, rep.Requests, rep.Elapsed, rep.Errors, rep.ErrorTexts)
	}
}
