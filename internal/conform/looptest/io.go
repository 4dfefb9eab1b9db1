package looptest

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/loopbench/loopbench"
	"github.com/loopbench/loopbench/internal/conform/seltest"
	"github.com/loopbench/loopbench/selectors"
	"golang.org/x/sys/unix"
)

func runIO(t *testing.T, cfg loopbench.Config) {
	tests := []struct {
		name string
		fn   func(*testing.T, *loopbench.Loop)
	}{
		{"IterationOrder", testIterationOrder},
		{"ThreadsafeBeforeIO", testThreadsafeBeforeIO},
		{"ReaderReplaced", testReaderReplaced},
		{"ReaderOnReusedFd", testReaderReusedFd},
		{"ReaderAndWriterOnOneFd", testReaderWriter},
		{"RemoveReports", testRemoveReports},
		{"RemoveInsideIteration", testRemoveInside},
		{"DataAcrossIterations", testStream},
		{"HighFd", testHighFd},
		{"RefusedFd", testRefusedFd},
		{"PanicInReader", testPanicInReader},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) { tc.fn(t, New(t, cfg)) })
	}
}

// testIterationOrder: one iteration runs, as asyncio's _run_once does, the
// CallSoon callbacks queued before it, then what CallSoonThreadsafe passed,
// then the ready reader, then the due timer; what each of them schedules
// runs in the next iteration, in the same order.
func testIterationOrder(t *testing.T, l *loopbench.Loop) {
	a, b := seltest.Pair(t)
	var r recorder
	then := func(s string) func() {
		return func() { r.add(s)(); l.CallSoon(r.add("after " + s)) }
	}
	l.CallLater(-1, then("timer"))
	l.CallSoon(then("soon1"))
	if err := l.AddReader(a, then("reader")); err != nil {
		t.Fatal(err)
	}
	l.CallSoonThreadsafe(then("threadsafe"))
	l.CallSoon(then("soon2"))
	seltest.Write(t, b, "x")
	RunOnce(t, l)
	first := []string{"soon1", "soon2", "threadsafe", "reader", "timer"}
	r.want(t, first...)
	l.RemoveReader(a)
	RunOnce(t, l)
	r.want(t, append(first, "after soon1", "after soon2", "after threadsafe", "after reader", "after timer")...)
}

// testThreadsafeBeforeIO: another goroutine passes a callback while the
// loop has an fd ready (the loop's callback waits until it has, so both
// are there at the next select): asyncio appends a thread-safe callback
// to _ready when it is made, before the select's events are processed,
// so it runs before the reader.
func testThreadsafeBeforeIO(t *testing.T, l *loopbench.Loop) {
	a, b := seltest.Pair(t)
	var r recorder
	if err := l.AddReader(a, func() { r.add("reader")(); l.RemoveReader(a); l.Stop() }); err != nil {
		t.Fatal(err)
	}
	l.CallSoon(func() {
		done := make(chan struct{})
		go func() {
			l.CallSoonThreadsafe(r.add("threadsafe"))
			seltest.Write(t, b, "x")
			close(done)
		}()
		<-done
	})
	RunFor(t, l, 10*time.Second)
	r.want(t, "threadsafe", "reader")
}

func testReaderReplaced(t *testing.T, l *loopbench.Loop) {
	a, b := seltest.Pair(t)
	var r recorder
	if err := l.AddReader(a, r.add("old")); err != nil {
		t.Fatal(err)
	}
	if err := l.AddReader(a, r.add("new")); err != nil {
		t.Fatal(err)
	}
	seltest.Write(t, b, "x")
	RunOnce(t, l)
	r.want(t, "new")
}

// testReaderReusedFd: an fd closed without RemoveReader and reused by a
// new socket (dup2 onto its number, which no other test can take in
// between): AddReader on it replaces the old reader and watches the new
// socket, with every selector.
func testReaderReusedFd(t *testing.T, l *loopbench.Loop) {
	a, _ := seltest.Pair(t)
	var r recorder
	if err := l.AddReader(a, r.add("old")); err != nil {
		t.Fatal(err)
	}
	c, d := seltest.Pair(t)
	if err := unix.Dup2(c, a); err != nil {
		t.Fatal(err)
	}
	unix.CloseOnExec(a)
	if err := l.AddReader(a, func() { r.add("new")(); l.RemoveReader(a); l.Stop() }); err != nil {
		t.Fatal(err)
	}
	seltest.Write(t, d, "x")
	RunFor(t, l, 10*time.Second)
	r.want(t, "new")
}

func testReaderWriter(t *testing.T, l *loopbench.Loop) {
	a, b := seltest.Pair(t)
	var r recorder
	if err := l.AddReader(a, r.add("r")); err != nil {
		t.Fatal(err)
	}
	if err := l.AddWriter(a, r.add("w")); err != nil {
		t.Fatal(err)
	}
	RunOnce(t, l)
	r.want(t, "w")
	seltest.Write(t, b, "x")
	RunOnce(t, l)
	r.want(t, "w", "r", "w")
	if !l.RemoveWriter(a) {
		t.Fatal("RemoveWriter = false with a writer")
	}
	RunOnce(t, l)
	r.want(t, "w", "r", "w", "r")
	l.RemoveReader(a)
	RunOnce(t, l)
	r.want(t, "w", "r", "w", "r")
}

func testRemoveReports(t *testing.T, l *loopbench.Loop) {
	a, _ := seltest.Pair(t)
	if l.RemoveReader(a) || l.RemoveWriter(a) || l.RemoveReader(-1) || l.RemoveReader(1<<20) {
		t.Fatal("Remove* = true with nothing registered")
	}
	l.AddWriter(a, func() {})
	if l.RemoveReader(a) {
		t.Fatal("RemoveReader = true with only a writer")
	}
	if !l.RemoveWriter(a) || l.RemoveWriter(a) {
		t.Fatal("RemoveWriter: want true once, then false")
	}
}

// testRemoveInside: a reader removed by a callback that runs earlier in the
// same iteration does not run, and a reader added back later works.
func testRemoveInside(t *testing.T, l *loopbench.Loop) {
	a, _ := seltest.Pair(t)
	var r recorder
	l.AddWriter(a, func() { r.add("w1")(); l.RemoveWriter(a) })
	RunOnce(t, l)
	RunOnce(t, l)
	r.want(t, "w1")
	c, _ := seltest.Pair(t)
	l.AddWriter(c, func() { l.RemoveWriter(a); r.add("c")() })
	l.AddWriter(a, r.add("w2"))
	RunOnce(t, l)
	if got := strings.Join(r.got, ","); got != "w1,c" && got != "w1,c,w2" && got != "w1,w2,c" {
		t.Fatalf("ran %s", got)
	}
	n := len(r.got)
	RunOnce(t, l)
	if r.got[len(r.got)-1] != "c" || len(r.got) != n+1 {
		t.Fatalf("after RemoveWriter the writer still ran: %q", r.got)
	}
}

// testStream sends 1 MiB through a socketpair from another goroutine; the
// reader gets it in pieces across many iterations, whole and in order.
func testStream(t *testing.T, l *loopbench.Loop) {
	a, b := seltest.Pair(t)
	unix.SetNonblock(b, false)
	want := bytes.Repeat([]byte("0123456789abcdef"), 1<<16)
	go func() {
		for off := 0; off < len(want); {
			n, err := unix.Write(b, want[off:min(off+7777, len(want))])
			if err != nil {
				t.Error(err)
				return
			}
			off += n
		}
	}()
	var got []byte
	buf := make([]byte, 4096)
	reads := 0
	l.AddReader(a, func() {
		n, err := unix.Read(a, buf)
		if err == unix.EAGAIN {
			return
		}
		if err != nil {
			t.Error(err)
			l.Stop()
			return
		}
		reads++
		got = append(got, buf[:n]...)
		if len(got) == len(want) {
			l.Stop()
		}
	})
	RunFor(t, l, 30*time.Second)
	if !bytes.Equal(got, want) {
		t.Fatalf("received %d bytes, not what was sent (%d bytes)", len(got), len(want))
	}
	if reads < 2 {
		t.Fatalf("1 MiB arrived in %d reads", reads)
	}
}

func testHighFd(t *testing.T, l *loopbench.Loop) {
	a, b := seltest.Pair(t)
	high := seltest.DupAbove(t, a, 1100)
	var r recorder
	err := l.AddReader(high, r.add("high"))
	if l.Config().Selector == "select" {
		if !errors.Is(err, selectors.ErrFdTooLarge) || !strings.Contains(err.Error(), fmt.Sprint("fd ", high)) {
			t.Fatalf("select, AddReader(fd %d) = %v, want ErrFdTooLarge naming the fd", high, err)
		}
		return
	}
	if err != nil {
		t.Fatal(err)
	}
	seltest.Write(t, b, "x")
	RunOnce(t, l)
	r.want(t, "high")
}

// closedFdMu keeps the parallel runs of testRefusedFd from opening again
// the fd number another one closed to probe with.
var closedFdMu sync.Mutex

func testRefusedFd(t *testing.T, l *loopbench.Loop) {
	if err := l.AddReader(-1, func() {}); err == nil {
		t.Error("AddReader(-1) succeeded")
	}
	a, _ := seltest.Pair(t)
	closedFdMu.Lock()
	defer closedFdMu.Unlock()
	closed, err := unix.FcntlInt(uintptr(a), unix.F_DUPFD_CLOEXEC, 900)
	if err != nil {
		t.Skipf("cannot dup an fd above 900: %v", err)
	}
	unix.Close(closed)
	err = l.AddReader(closed, func() {})
	if !errors.Is(err, unix.EBADF) {
		t.Errorf("AddReader(closed fd) = %v, want EBADF", err)
	}
	// The failed registration left nothing behind.
	if l.RemoveReader(closed) {
		t.Error("RemoveReader found a reader whose AddReader failed")
	}
}

func testPanicInReader(t *testing.T, l *loopbench.Loop) {
	a, b := seltest.Pair(t)
	n := 0
	l.SetExceptionHandler(func(loopbench.ExceptionContext) { n++ })
	l.AddReader(a, func() { panic("reader") })
	seltest.Write(t, b, "x")
	RunOnce(t, l)
	RunOnce(t, l) // level-triggered: still readable, panics again
	if n != 2 {
		t.Fatalf("handler saw %d panics, want 2", n)
	}
}
