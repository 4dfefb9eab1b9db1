package load

import (
	"context"
	"errors"
	"fmt"
	"net"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// copyEcho echoes whatever it reads, of any size, through a buffer of
// its own (io.Copy would splice through a pipe: two more descriptors per
// connection).
func copyEcho(c net.Conn) {
	buf := make([]byte, 4096)
	for {
		n, err := c.Read(buf)
		if err != nil {
			return
		}
		if _, err := c.Write(buf[:n]); err != nil {
			return
		}
	}
}

// generatorHeap returns the bytes in use on the heap that the generator
// allocated (a frame of this package's non-test code on the allocation's
// stack: its loops, connections and their registrations on the loop, not
// the in-process server's), as of a collection run now. Allocations are
// sampled at the rate set before them (runtime.MemProfileRate; 1 counts
// every one).
func generatorHeap() int64 {
	runtime.GC()
	runtime.GC() // the profile is as of the last completed cycle
	n, _ := runtime.MemProfile(nil, true)
	recs := make([]runtime.MemProfileRecord, n+100)
	n, _ = runtime.MemProfile(recs, true)
	var sum int64
	for _, r := range recs[:n] {
		if generators(r.Stack()) {
			sum += r.InUseBytes()
		}
	}
	return sum
}

// generators reports whether this package's non-test code is on stack.
func generators(stack []uintptr) bool {
	frames := runtime.CallersFrames(stack)
	for {
		f, more := frames.Next()
		if strings.HasPrefix(f.Function, "github.com/loopbench/loopbench/internal/harness/load.") && !strings.HasSuffix(f.File, "_test.go") {
			return true
		}
		if !more {
			return false
		}
	}
}

// heapPerConn runs a closed loop of conns connections of 1 KiB to an
// in-process echo server for a few hundred requests and returns the
// generator's heap in use per connection when the window closed (every
// connection open), socket buffers (kernel memory) aside. It needs about
// 2*conns+100 descriptors, and skips with one line without them.
func heapPerConn(tb testing.TB, conns int) float64 {
	tb.Helper()
	needFds(tb, 2*conns+100)
	defer func(rate int) { runtime.MemProfileRate = rate }(runtime.MemProfileRate)
	runtime.MemProfileRate = 1
	addr, dial := pacedServer(tb, conns)
	var heap int64
	testHookWindowClosed = func() { heap = generatorHeap() }
	defer func() { testHookWindowClosed = nil }()
	rep, err := Run(context.Background(), Config{Addr: addr, Conns: conns, Size: 1024, Duration: 10 * time.Minute, Timeout: 30 * time.Second, Requests: 300, Dial: dial})
	if err != nil {
		tb.Fatal(err)
	}
	if rep.Requests < 300 || rep.Errors != 0 {
		tb.Fatalf("%d requests, %d errors: %v", rep.Requests, rep.Errors, rep.ErrorTexts)
	}
	return float64(heap) / float64(conns)
}

// pacedServer is an in-process echo server for conns connections, and a
// dial that keeps the connections the server has not accepted yet below
// the listen backlog: at most 256 dials at a time, each returning once
// the server accepted one more connection. (Dialled all at once, the
// thousands of connections overflow the backlog, and the kernel drops
// them while the client has them open.) An accept that fails fails the
// test and the dials waiting for it.
func pacedServer(tb testing.TB, conns int) (addr string, dial func(string) (net.Conn, error)) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	accepted, slots, failed := make(chan struct{}, 2*conns), make(chan struct{}, 256), make(chan struct{})
	var mu sync.Mutex
	var open []net.Conn
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				if !errors.Is(err, net.ErrClosed) {
					tb.Errorf("in-process server: %v", err)
				}
				close(failed)
				return
			}
			mu.Lock()
			open = append(open, c)
			mu.Unlock()
			accepted <- struct{}{}
			wg.Add(1)
			go func() { defer wg.Done(); copyEcho(c) }()
		}
	}()
	tb.Cleanup(func() {
		ln.Close()
		mu.Lock()
		for _, c := range open {
			c.Close()
		}
		mu.Unlock()
		wg.Wait()
	})
	dial = func(a string) (net.Conn, error) {
		slots <- struct{}{}
		defer func() { <-slots }()
		c, err := net.DialTimeout("tcp", a, 30*time.Second)
		if err != nil {
			return nil, err
		}
		select {
		case <-accepted:
			return c, nil
		case <-failed:
			c.Close()
			return nil, errors.New("the in-process server stopped accepting")
		}
	}
	return ln.Addr().String(), dial
}

// needFds raises the soft open-file limit to n, or skips.
func needFds(tb testing.TB, n int) {
	var r unix.Rlimit
	if err := unix.Getrlimit(unix.RLIMIT_NOFILE, &r); err != nil {
		tb.Skipf("open-file limit unknown: %v", err)
	}
	if uint64(r.Cur) >= uint64(n) {
		return
	}
	want := r
	setTo(&want.Cur, n)
	if uint64(r.Max) < uint64(n) {
		setTo(&want.Max, n)
	}
	if err := unix.Setrlimit(unix.RLIMIT_NOFILE, &want); err != nil {
		tb.Skipf("needs %d open files; the limit is %d (hard %d) and cannot be raised: %v", n, r.Cur, r.Max, err)
	}
}

// TestMemoryPerConnection: at 2000 connections the generator's heap is at
// most 64 KiB per connection (its loop's histograms included).
func TestMemoryPerConnection(t *testing.T) {
	if testing.Short() {
		t.Skip("opens 2000 connections")
	}
	if per := heapPerConn(t, 2000); per > 64<<10 {
		t.Errorf("%.0f B of heap per connection, over 64 KiB", per)
	} else {
		t.Logf("%.0f B of heap per connection", per)
	}
}

// BenchmarkMemoryPerConn reports the generator's heap per connection
// (B/conn) at 1,000, 9,000 and 10,000 connections of 1 KiB to an in-process echo
// server, when the window closes after 300 requests. 10,000 connections
// need 25,000 open files: the benchmark raises the limit or skips.
func BenchmarkMemoryPerConn(b *testing.B) {
	for _, conns := range []int{1000, 9000, 10000} {
		b.Run(fmt.Sprintf("conns=%d", conns), func(b *testing.B) {
			if conns == 10000 {
				needFds(b, 25000)
			}
			var sum float64
			for range b.N {
				sum += heapPerConn(b, conns)
			}
			b.ReportMetric(sum/float64(b.N), "B/conn")
		})
	}
}

// setTo sets an rlimit field, int64 or uint64 as the system has it.
func setTo[T ~int64 | ~uint64](p *T, v int) { *p = T(v) }
