package looptest

import (
	"errors"
	"runtime"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/loopbench/loopbench"
)

func sleeper(l *loopbench.Loop, d time.Duration, v any, err error) *loopbench.Task {
	return l.CreateTask(func(tk *loopbench.Task) (any, error) {
		if e := loopbench.Sleep(tk, d); e != nil {
			return nil, e
		}
		return v, err
	})
}

func testGather(t *testing.T, l *loopbench.Loop) {
	f := l.CreateFuture()
	l.CallLater(time.Millisecond, func() { f.SetResult("f") })
	g := loopbench.Gather(l, sleeper(l, 2*time.Millisecond, 1, nil), f, sleeper(l, 0, 3, nil))
	v, err := complete(t, l, g)
	if err != nil || !slices.Equal(v.([]any), []any{1, "f", 3}) {
		t.Fatalf("Gather = %v, %v; want [1 f 3] in argument order", v, err)
	}
	if v, err := complete(t, l, loopbench.Gather(l)); err != nil || len(v.([]any)) != 0 {
		t.Fatalf("empty Gather = %v, %v", v, err)
	}
}

func testGatherError(t *testing.T, l *loopbench.Loop) {
	first, second := errors.New("first"), errors.New("second")
	slow := sleeper(l, time.Hour, 1, nil)
	g := loopbench.Gather(l, slow, sleeper(l, time.Millisecond, nil, first), sleeper(l, 2*time.Millisecond, nil, second))
	if _, err := complete(t, l, g); err != first {
		t.Fatalf("Gather error %v, want the first one", err)
	}
	if slow.Done() {
		t.Fatal("the first error cancelled the other children")
	}
	slow.Cancel("")
	complete(t, l, slow)
}

func testGatherErrors(t *testing.T, l *loopbench.Loop) {
	bad := errors.New("bad")
	c := l.CreateFuture()
	c.Cancel("")
	v, err := complete(t, l, loopbench.GatherErrors(l, sleeper(l, 0, 1, nil), sleeper(l, 0, nil, bad), c))
	res, _ := v.([]any)
	if err != nil || len(res) != 3 || res[0] != 1 || res[1] != bad || !errors.Is(res[2].(error), loopbench.ErrCancelled) {
		t.Fatalf("GatherErrors = %v, %v", v, err)
	}
}

func testGatherCancel(t *testing.T, l *loopbench.Loop) {
	a, b := sleeper(l, time.Hour, 1, nil), sleeper(l, time.Hour, 2, nil)
	g := loopbench.Gather(l, a, b)
	RunOnce(t, l)
	if !g.Cancel("") {
		t.Fatal("Cancel of a pending gather = false")
	}
	_, err := complete(t, l, g)
	if !errors.Is(err, loopbench.ErrCancelled) || !a.Cancelled() || !b.Cancelled() {
		t.Fatalf("gather error %v; children cancelled %v %v", err, a.Cancelled(), b.Cancelled())
	}
}

func testWaitForResult(t *testing.T, l *loopbench.Loop) {
	task := l.CreateTask(func(tk *loopbench.Task) (any, error) {
		return loopbench.WaitFor(tk, sleeper(l, time.Millisecond, "in time", nil), time.Hour)
	})
	if v, err := complete(t, l, task); v != "in time" || err != nil {
		t.Fatalf("WaitFor = %v, %v", v, err)
	}
}

// testWaitForTimeout: on timeout WaitFor cancels the inner task and waits
// until it has handled the cancellation before returning ErrTimeout.
func testWaitForTimeout(t *testing.T, l *loopbench.Loop) {
	cleanedUp := false
	inner := l.CreateTask(func(tk *loopbench.Task) (any, error) {
		err := loopbench.Sleep(tk, time.Hour)
		loopbench.Sleep(tk, 0) // cleaning up takes an iteration
		loopbench.Sleep(tk, time.Millisecond)
		cleanedUp = true
		return nil, err
	})
	task := l.CreateTask(func(tk *loopbench.Task) (any, error) {
		_, err := loopbench.WaitFor(tk, inner, 2*time.Millisecond)
		if !inner.Done() || !cleanedUp {
			return nil, errors.New("wait-for returned before the inner task finished")
		}
		return nil, err
	})
	if _, err := complete(t, l, task); !errors.Is(err, loopbench.ErrTimeout) || !inner.Cancelled() {
		t.Fatalf("WaitFor error %v, inner cancelled %v", err, inner.Cancelled())
	}
}

func testExecutor(t *testing.T, l *loopbench.Loop) {
	var running, peak atomic.Int32
	release := make(chan struct{})
	var futs []loopbench.Awaitable
	for i := range 64 {
		futs = append(futs, l.RunInExecutor(func() (any, error) {
			n := running.Add(1)
			for p := peak.Load(); n > p && !peak.CompareAndSwap(p, n); p = peak.Load() {
			}
			<-release
			running.Add(-1)
			return i, nil
		}))
	}
	futs = append(futs, l.RunInExecutor(func() (any, error) { panic("job") }))
	time.AfterFunc(20*time.Millisecond, func() { close(release) })
	v, err := complete(t, l, loopbench.GatherErrors(l, futs...))
	res := v.([]any)
	if err != nil || res[0] != 0 || res[63] != 63 {
		t.Fatalf("executor results %v, %v", res, err)
	}
	if perr, _ := res[64].(error); perr == nil || !strings.Contains(perr.Error(), "job") {
		t.Fatalf("panicking job gave %v", res[64])
	}
	if p := peak.Load(); p > int32(min(32, runtime.NumCPU()+4)) {
		t.Fatalf("%d jobs ran at once; the pool is bounded to min(32, CPUs+4)", p)
	}
}

// CloseStopsTasks checks that Close stops every unfinished task, including
// one never started and ones blocked in Await, and the executor's workers:
// no goroutine is left behind. It counts goroutines, so it must not run in
// parallel with other tests.
func CloseStopsTasks(t *testing.T, cfg loopbench.Config) {
	before := runtime.NumGoroutine()
	l := New(t, cfg)
	never := l.CreateFuture()
	var tasks []*loopbench.Task
	unwound := 0
	for range 10 {
		tasks = append(tasks, l.CreateTask(func(tk *loopbench.Task) (any, error) {
			defer func() { unwound++ }()
			tk.Await(never)
			return nil, nil
		}))
	}
	complete(t, l, l.RunInExecutor(func() (any, error) { return nil, nil }))
	// Finished tasks leave their coroutines idle, for the next tasks.
	var finished []loopbench.Awaitable
	for range 5 {
		finished = append(finished, l.CreateTask(func(tk *loopbench.Task) (any, error) { return nil, loopbench.Sleep(tk, 0) }))
	}
	if _, err := complete(t, l, loopbench.Gather(l, finished...)); err != nil {
		t.Fatal(err)
	}
	tasks = append(tasks, l.CreateTask(func(*loopbench.Task) (any, error) { return nil, nil }))
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	for _, tk := range tasks {
		if !tk.Cancelled() {
			t.Fatalf("task %v not cancelled by Close", tk)
		}
	}
	if unwound != 10 {
		t.Fatalf("%d of 10 suspended functions unwound", unwound)
	}
	var n int
	if !settle(func() bool { n = runtime.NumGoroutine(); return n <= before }) {
		t.Fatalf("%d goroutines after Close, %d before", n, before)
	}
}

func testRun(t *testing.T, cfg loopbench.Config) {
	var background *loopbench.Task
	v, err := loopbench.Run(cfg, func(tk *loopbench.Task) (any, error) {
		l := tk.Loop()
		background = l.CreateTask(func(b *loopbench.Task) (any, error) {
			for {
				if err := loopbench.Sleep(b, time.Millisecond); err != nil {
					return nil, err
				}
			}
		})
		if err := loopbench.Sleep(tk, 2*time.Millisecond); err != nil {
			return nil, err
		}
		return "main", nil
	})
	if v != "main" || err != nil {
		t.Fatalf("Run = %v, %v", v, err)
	}
	if !background.Cancelled() || !background.Loop().IsClosed() {
		t.Fatal("Run left a task pending or the loop open")
	}
	if _, err := loopbench.Run(loopbench.Config{Ready: "nope"}, nil); err == nil {
		t.Fatal("Run with an unknown variant succeeded")
	}
}

// testCloseDoesNotWait: Close returns while an executor job still runs
// (asyncio's close does not wait), drops the jobs queued, and the running
// job's result goes nowhere when it ends.
func testCloseDoesNotWait(t *testing.T, l *loopbench.Loop) {
	release := make(chan struct{})
	started := make(chan struct{})
	var waited atomic.Bool
	l.RunInExecutor(func() (any, error) {
		close(started)
		<-release
		return nil, nil
	})
	<-started
	// A detector, not a measure: a Close that waits for the job returns
	// only once this releases it.
	timer := time.AfterFunc(10*time.Second, func() { waited.Store(true); close(release) })
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	if waited.Load() {
		t.Fatal("Close waited for a running executor job")
	}
	if timer.Stop() {
		close(release)
	}
}

// testShutdownExecutor: ShutdownDefaultExecutor waits for the jobs queued
// and running, then refuses new ones; with a job that does not end, it
// fails with ErrTimeout once the timeout passes.
func testShutdownExecutor(t *testing.T, l *loopbench.Loop) {
	var ran atomic.Int32
	gate := make(chan struct{})
	for range 50 {
		l.RunInExecutor(func() (any, error) { <-gate; ran.Add(1); return nil, nil })
	}
	shut := l.ShutdownDefaultExecutor(loopbench.Never)
	close(gate)
	if _, err := complete(t, l, shut); err != nil || ran.Load() != 50 {
		t.Fatalf("ShutdownDefaultExecutor = %v after %d of 50 jobs", err, ran.Load())
	}
	if _, err := complete(t, l, l.RunInExecutor(func() (any, error) { return nil, nil })); !errors.Is(err, loopbench.ErrExecutorShutdown) {
		t.Fatalf("RunInExecutor after the shutdown = %v, want ErrExecutorShutdown", err)
	}
	if _, err := complete(t, l, l.ShutdownDefaultExecutor(0)); err != nil {
		t.Fatalf("a second shutdown, nothing running = %v", err)
	}
	other := New(t, l.Config())
	stuck := make(chan struct{})
	defer close(stuck)
	other.RunInExecutor(func() (any, error) { <-stuck; return nil, nil })
	if _, err := complete(t, other, other.ShutdownDefaultExecutor(time.Millisecond)); !errors.Is(err, loopbench.ErrTimeout) {
		t.Fatalf("shutdown with a stuck job = %v, want ErrTimeout", err)
	}
}
