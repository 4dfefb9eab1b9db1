package looptest

import (
	"bytes"
	"errors"
	"log/slog"
	"math"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/loopbench/loopbench"
)

func testStopBeforeRun(t *testing.T, l *loopbench.Loop) {
	var r recorder
	l.CallLater(time.Hour, r.add("hour"))
	l.CallSoon(func() { r.add("a")(); l.CallSoon(r.add("next")) })
	l.Stop()
	RunFor(t, l, 10*time.Second) // returns after one iteration, without blocking
	r.want(t, "a")
	l.Stop()
	RunFor(t, l, 10*time.Second) // an idle iteration: still no blocking
	r.want(t, "a", "next")
}

func testStopInside(t *testing.T, l *loopbench.Loop) {
	var r recorder
	l.CallSoon(func() { l.Stop(); l.CallSoon(r.add("later")) })
	l.CallSoon(r.add("rest"))
	RunFor(t, l, 10*time.Second)
	r.want(t, "rest")
	if l.IsRunning() {
		t.Fatal("IsRunning after RunForever returned")
	}
}

func testRunUntilComplete(t *testing.T, l *loopbench.Loop) {
	f := l.CreateFuture()
	l.CallLater(time.Millisecond, func() { f.SetResult(42) })
	if v, err := l.RunUntilComplete(f); v != 42 || err != nil {
		t.Fatalf("RunUntilComplete = %v, %v", v, err)
	}
	g := l.CreateFuture()
	l.CallSoon(l.Stop)
	if _, err := l.RunUntilComplete(g); !errors.Is(err, loopbench.ErrStoppedBeforeDone) {
		t.Fatalf("stopped first: %v, want ErrStoppedBeforeDone", err)
	}
	boom := errors.New("boom")
	l.CallSoon(func() { g.SetException(boom) })
	if _, err := l.RunUntilComplete(g); err != boom {
		t.Fatalf("resumed run: %v, want boom", err)
	}
	other := New(t, l.Config())
	if _, err := l.RunUntilComplete(other.CreateFuture()); err == nil {
		t.Fatal("RunUntilComplete accepted a future of another loop")
	}
}

// testNestedRun: a loop run from a callback, a timer or a task's function
// of a running loop is ErrRunning, for the same loop and for another; a
// loop run on a goroutine a callback starts is not nested, and runs.
func testNestedRun(t *testing.T, l *loopbench.Loop) {
	other := New(t, l.Config())
	var errs []error
	l.CallSoon(func() {
		errs = append(errs, l.RunForever(), other.RunForever())
		_, err := l.RunUntilComplete(l.CreateFuture())
		errs = append(errs, err)
	})
	l.CallLater(0, func() {
		errs = append(errs, other.RunForever())
	})
	task := l.CreateTask(func(*loopbench.Task) (any, error) {
		errs = append(errs, other.RunForever())
		_, err := other.RunUntilComplete(other.CreateFuture())
		return nil, err
	})
	apart := make(chan error, 1)
	third := New(t, l.Config())
	l.CallSoon(func() {
		// Another goroutine is not nested: a loop it runs runs while l runs.
		go func() {
			third.CallSoon(third.Stop)
			apart <- third.RunForever()
		}()
	})
	if _, err := l.RunUntilComplete(task); !errors.Is(err, loopbench.ErrRunning) {
		t.Errorf("RunUntilComplete in a task's function: %v, want ErrRunning", err)
	}
	if len(errs) != 5 {
		t.Fatalf("%d nested runs tried, want 5", len(errs))
	}
	for i, err := range errs {
		if !errors.Is(err, loopbench.ErrRunning) {
			t.Errorf("nested run %d: %v, want ErrRunning", i, err)
		}
	}
	if err := <-apart; err != nil {
		t.Errorf("a run on another goroutine while the loop ran: %v", err)
	}
	// Both loops run normally afterwards.
	RunOnce(t, other)
	RunOnce(t, l)
}

func mustPanicClosed(t *testing.T, what string, f func()) {
	t.Helper()
	defer func() {
		err, _ := recover().(error)
		if !errors.Is(err, loopbench.ErrClosed) {
			t.Errorf("%s after Close: panic %v, want ErrClosed", what, err)
		}
	}()
	f()
}

func testClose(t *testing.T, l *loopbench.Loop) {
	var closeErr error
	l.CallSoon(func() { closeErr = l.Close(); l.Stop() })
	RunFor(t, l, 10*time.Second)
	if !errors.Is(closeErr, loopbench.ErrRunning) || l.IsClosed() {
		t.Fatalf("Close while running = %v, IsClosed %v", closeErr, l.IsClosed())
	}
	ran := false
	l.CallSoon(func() { ran = true })
	if err := l.Close(); err != nil || !l.IsClosed() {
		t.Fatalf("Close = %v, IsClosed %v", err, l.IsClosed())
	}
	if err := l.Close(); err != nil {
		t.Fatalf("second Close = %v", err)
	}
	if err := l.RunForever(); !errors.Is(err, loopbench.ErrClosed) || ran {
		t.Fatalf("RunForever after Close = %v (pending callback ran: %v)", err, ran)
	}
	mustPanicClosed(t, "CallSoon", func() { l.CallSoon(func() {}) })
	mustPanicClosed(t, "CallLater", func() { l.CallLater(0, func() {}) })
	mustPanicClosed(t, "CallAt", func() { l.CallAt(0, func() {}) })
	mustPanicClosed(t, "CallSoonThreadsafe", func() { l.CallSoonThreadsafe(func() {}) })
	mustPanicClosed(t, "CreateFuture", func() { l.CreateFuture() })
	if err := l.AddReader(0, func() {}); !errors.Is(err, loopbench.ErrClosed) {
		t.Errorf("AddReader after Close = %v", err)
	}
	if err := l.AddWriter(0, func() {}); !errors.Is(err, loopbench.ErrClosed) {
		t.Errorf("AddWriter after Close = %v", err)
	}
	if l.RemoveReader(0) || l.RemoveWriter(0) {
		t.Error("Remove* after Close returned true")
	}
	if _, err := l.RunUntilComplete(&loopbench.Future{}); err == nil {
		t.Error("RunUntilComplete after Close succeeded")
	}
}

func testPanic(t *testing.T, l *loopbench.Loop) {
	var ctxs []loopbench.ExceptionContext
	l.SetExceptionHandler(func(c loopbench.ExceptionContext) { ctxs = append(ctxs, c) })
	var r recorder
	boom := errors.New("boom")
	l.CallSoon(r.add("a"))
	h := l.CallSoon(func() { panic(boom) })
	l.CallSoon(r.add("b"))
	l.CallSoon(func() { panic("text") })
	l.CallSoon(r.add("c"))
	th := l.CallLater(-1, func() { panic(nil) })
	RunOnce(t, l)
	r.want(t, "a", "b", "c")
	if len(ctxs) != 3 {
		t.Fatalf("handler called %d times, want 3", len(ctxs))
	}
	if ctxs[0].Handle != h || !errors.Is(ctxs[0].Err, boom) || ctxs[0].Panic != boom || len(ctxs[0].Stack) == 0 {
		t.Errorf("first panic context = %+v, want handle %v and boom", ctxs[0], h)
	}
	if ctxs[1].Panic != "text" || ctxs[1].Err == nil {
		t.Errorf("second panic context = %+v", ctxs[1])
	}
	if ctxs[2].Handle != th.Handle {
		t.Errorf("timer panic context names %v, want %v", ctxs[2].Handle, th.Handle)
	}
	// The loop goes on.
	l.CallSoon(r.add("d"))
	RunOnce(t, l)
	r.want(t, "a", "b", "c", "d")
}

func testPanicInHandler(t *testing.T, l *loopbench.Loop) {
	var out bytes.Buffer
	l.SetLogger(slog.New(slog.NewTextHandler(&out, nil)))
	l.SetExceptionHandler(func(loopbench.ExceptionContext) { panic("handler") })
	var r recorder
	l.CallSoon(func() { panic("cb") })
	l.CallSoon(r.add("after"))
	RunOnce(t, l)
	r.want(t, "after")
	// The default handler logs the panic of a callback to the slog.Logger.
	l.SetExceptionHandler(nil)
	l.CallSoon(func() { panic("default") })
	RunOnce(t, l)
	got := out.String()
	if strings.Count(got, "level=ERROR") != 2 || !strings.Contains(got, "panic in exception handler") || !strings.Contains(got, "panic: default") {
		t.Fatalf("log %q, want two errors: the handler's panic and the callback's", got)
	}
}

// testThreadsafe: 8 goroutines each schedule 500 callbacks on a loop that
// is blocked with nothing else to do; each goroutine's callbacks run in the
// order it made them, and the last one stops the loop.
func testThreadsafe(t *testing.T, l *loopbench.Loop) {
	const workers, each = 8, 500
	next := make([]int, workers)
	total := 0
	l.CallSoon(func() {
		for w := range workers {
			go func() {
				for i := range each {
					l.CallSoonThreadsafe(func() {
						if next[w] != i {
							t.Errorf("goroutine %d: callback %d ran when %d was due", w, i, next[w])
						}
						next[w]++
						if total++; total == workers*each {
							l.Stop()
						}
					})
				}
			}()
		}
	})
	RunFor(t, l, 30*time.Second)
	if total != workers*each {
		t.Fatalf("%d callbacks ran, want %d", total, workers*each)
	}
}

func testThreadsafeCancel(t *testing.T, l *loopbench.Loop) {
	var r recorder
	done := make(chan loopbench.Handle)
	go func() {
		l.CallSoonThreadsafe(r.add("a"))
		h := l.CallSoonThreadsafe(r.add("cancelled"))
		h.Cancel()
		h.Cancel()
		if !h.Cancelled() {
			t.Error("threadsafe handle: Cancelled() = false after Cancel")
		}
		l.CallSoonThreadsafe(r.add("b"))
		done <- h
	}()
	h := <-done
	RunOnce(t, l)
	r.want(t, "a", "b")
	l.CallSoonThreadsafe(r.add("c")) // reuses the record h had
	h.Cancel()
	RunOnce(t, l)
	r.want(t, "a", "b", "c")
}

// testRunUntilCompleteRefused: RunUntilComplete of a future already done
// is refused like any run, and leaves nothing behind: from inside a
// running loop it is ErrRunning and that run goes on (no stop was
// scheduled for it); on a closed loop it is ErrClosed, not a panic.
func testRunUntilCompleteRefused(t *testing.T, l *loopbench.Loop) {
	done := l.CreateFuture()
	done.SetResult(1)
	var r recorder
	var inner error
	l.CallSoon(func() {
		_, inner = l.RunUntilComplete(done)
		l.CallSoon(func() {
			r.add("b")()
			l.CallSoon(func() { r.add("c")(); l.Stop() })
		})
	})
	RunFor(t, l, 10*time.Second)
	if !errors.Is(inner, loopbench.ErrRunning) {
		t.Errorf("RunUntilComplete inside the run = %v, want ErrRunning", inner)
	}
	r.want(t, "b", "c")
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		if p := recover(); p != nil {
			t.Fatalf("RunUntilComplete on a closed loop panicked: %v", p)
		}
	}()
	if _, err := l.RunUntilComplete(done); !errors.Is(err, loopbench.ErrClosed) {
		t.Fatalf("RunUntilComplete on a closed loop = %v, want ErrClosed", err)
	}
}

// testTryThreadsafe: TryCallSoonThreadsafe queues like CallSoonThreadsafe
// while the loop is open, and reports ErrClosed, never panicking, from
// goroutines that race with Close.
func testTryThreadsafe(t *testing.T, l *loopbench.Loop) {
	var r recorder
	if _, err := l.TryCallSoonThreadsafe(r.add("a")); err != nil {
		t.Fatal(err)
	}
	RunOnce(t, l)
	r.want(t, "a")
	var wg sync.WaitGroup
	errs := make(chan error, 4)
	for range 4 {
		wg.Go(func() {
			for {
				if _, err := l.TryCallSoonThreadsafe(func() {}); err != nil {
					errs <- err
					return
				}
			}
		})
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if !errors.Is(err, loopbench.ErrClosed) {
			t.Errorf("TryCallSoonThreadsafe racing with Close = %v, want ErrClosed", err)
		}
	}
}

// testHugeDelay: a delay past the clock's range saturates, so the timer
// never fires and never wraps around into the past; a nearer timer still
// runs and stops the loop.
func testHugeDelay(t *testing.T, l *loopbench.Loop) {
	var r recorder
	h := l.CallLater(math.MaxInt64, r.add("never"))
	l.CallLater(time.Duration(math.MaxInt64-1), r.add("never either"))
	l.CallLater(20*time.Millisecond, func() { r.add("stop")(); l.Stop() })
	RunFor(t, l, 10*time.Second)
	r.want(t, "stop")
	if h.When() != loopbench.Never {
		t.Errorf("When() = %v, want Never (saturated)", h.When())
	}
}
