package looptest

import (
	"errors"
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/loopbench/loopbench"
)

// RunTasks runs the Future/Task conformance suite on cfg: asyncio's
// futures.py and tasks.py behaviours.
func RunTasks(t *testing.T, cfg loopbench.Config) {
	runEach(t, cfg, []loopTest{
		{"FutureStates", testFutureStates},
		{"FutureCallbacks", testFutureCallbacks},
		{"FutureReset", testFutureReset},
		{"FutureResetWhileTaskWakes", testFutureResetAwaited},
		{"AwaitWakeupInCallbackOrder", testAwaitWakeupOrder},
		{"TaskFirstStepNextIteration", testTaskFirstStep},
		{"AwaitDoneDoesNotSwitch", testAwaitDone},
		{"SleepZeroYieldsOneIteration", testSleepZero},
		{"SleepOrder", testSleepOrder},
		{"CancelWhileAwaiting", testCancelAwaiting},
		{"CancelHandledIsNotCancelled", testCancelHandled},
		{"CancelSelf", testCancelSelf},
		{"CancelBeforeStart", testCancelBeforeStart},
		{"CancellingCounts", testCancellingCounts},
		{"LastUncancelWithdraws", testUncancelWithdraws},
		{"AwaitTask", testAwaitTask},
		{"TaskCompletedOnlyByItsFunction", testTaskNotSettable},
		{"PanicBecomesError", testTaskPanic},
		{"GoexitBecomesError", testTaskGoexit},
		{"AwaitErrors", testAwaitErrors},
		{"Gather", testGather},
		{"GatherFirstErrorWins", testGatherError},
		{"GatherCollectsErrors", testGatherErrors},
		{"GatherCancel", testGatherCancel},
		{"WaitForResult", testWaitForResult},
		{"WaitForTimeout", testWaitForTimeout},
		{"RunInExecutor", testExecutor},
		{"CloseDoesNotWaitForExecutor", testCloseDoesNotWait},
		{"ShutdownDefaultExecutor", testShutdownExecutor},
	})
	t.Run("Run", func(t *testing.T) { testRun(t, cfg) })
}

// complete runs l until aw is done, failing the test after 30 s.
func complete(tb testing.TB, l *loopbench.Loop, aw loopbench.Awaitable) (any, error) {
	tb.Helper()
	timer := time.AfterFunc(30*time.Second, func() {
		l.CallSoonThreadsafe(func() { tb.Errorf("not done after 30s"); l.Stop() })
	})
	defer timer.Stop()
	return l.RunUntilComplete(aw)
}

func testFutureStates(t *testing.T, l *loopbench.Loop) {
	f := l.CreateFuture()
	if _, err := f.Result(); !errors.Is(err, loopbench.ErrInvalidState) || f.Done() {
		t.Fatalf("pending future: Result error %v, Done %v", err, f.Done())
	}
	if err := f.SetResult(1); err != nil {
		t.Fatal(err)
	}
	if err := f.SetResult(2); !errors.Is(err, loopbench.ErrInvalidState) {
		t.Fatalf("second SetResult = %v", err)
	}
	if err := f.SetException(errors.New("x")); !errors.Is(err, loopbench.ErrInvalidState) {
		t.Fatalf("SetException after SetResult = %v", err)
	}
	if f.Cancel("") || f.Cancelled() {
		t.Fatal("Cancel of a finished future succeeded")
	}
	if v, err := f.Result(); v != 1 || err != nil {
		t.Fatalf("Result = %v, %v", v, err)
	}
	g := l.CreateFuture()
	if !g.Cancel("bye") || g.Cancel("again") || !g.Cancelled() || !g.Done() {
		t.Fatal("Cancel: want true once, then false, and Cancelled")
	}
	if _, err := g.Result(); !errors.Is(err, loopbench.ErrCancelled) || !strings.Contains(err.Error(), "bye") {
		t.Fatalf("cancelled Result error = %v, want ErrCancelled with the message", err)
	}
	if err := g.SetResult(1); !errors.Is(err, loopbench.ErrInvalidState) {
		t.Fatalf("SetResult after Cancel = %v", err)
	}
	if err := l.CreateFuture().SetException(nil); err == nil {
		t.Fatal("SetException(nil) accepted")
	}
}

func testFutureCallbacks(t *testing.T, l *loopbench.Loop) {
	var r recorder
	f := l.CreateFuture()
	f.AddDoneCallback(func(*loopbench.Future) { r.add("a")() })
	tok := f.AddDoneCallback(func(*loopbench.Future) { r.add("removed")() })
	f.AddDoneCallback(func(got *loopbench.Future) {
		if got != f {
			t.Error("callback got another future")
		}
		r.add("b")()
	})
	if !f.RemoveDoneCallback(tok) || f.RemoveDoneCallback(tok) {
		t.Fatal("RemoveDoneCallback: want true once, then false")
	}
	f.SetResult(nil)
	r.want(t) // never synchronously
	f.AddDoneCallback(func(*loopbench.Future) { r.add("late")() })
	RunOnce(t, l)
	r.want(t, "a", "b", "late")
}

func testFutureReset(t *testing.T, l *loopbench.Loop) {
	f := l.CreateFuture()
	if err := f.Reset(); !errors.Is(err, loopbench.ErrInvalidState) {
		t.Fatalf("Reset of a pending future = %v", err)
	}
	n := 0
	f.AddDoneCallback(func(*loopbench.Future) { n++ })
	f.SetResult(1)
	if err := f.Reset(); !errors.Is(err, loopbench.ErrInvalidState) {
		t.Fatalf("Reset with a callback still due = %v", err)
	}
	RunOnce(t, l)
	if err := f.Reset(); err != nil || f.Done() {
		t.Fatalf("Reset = %v, Done %v", err, f.Done())
	}
	f.AddDoneCallback(func(*loopbench.Future) { n++ })
	f.SetResult(2)
	RunOnce(t, l)
	if v, _ := f.Result(); v != 2 || n != 2 {
		t.Fatalf("after Reset: result %v, callbacks run %d", v, n)
	}
}

// A task's wakeup is one of the future's done callbacks: Reset is refused
// until the task has been resumed.
func testFutureResetAwaited(t *testing.T, l *loopbench.Loop) {
	f := l.CreateFuture()
	task := l.CreateTask(func(tk *loopbench.Task) (any, error) { return tk.Await(f) })
	RunOnce(t, l) // the task starts and awaits f
	f.SetResult("v")
	if err := f.Reset(); !errors.Is(err, loopbench.ErrInvalidState) {
		t.Fatalf("Reset with the awaiting task not resumed = %v", err)
	}
	if v, err := complete(t, l, task); v != "v" || err != nil {
		t.Fatalf("task = %v, %v; want v", v, err)
	}
	if err := f.Reset(); err != nil {
		t.Fatalf("Reset after the task resumed = %v", err)
	}
}

// Done callbacks and the wakeups of awaiting tasks run in the order they
// were added, whether a task or a callback comes first.
func testAwaitWakeupOrder(t *testing.T, l *loopbench.Loop) {
	var r recorder
	awaiter := func(name string, f *loopbench.Future) *loopbench.Task {
		return l.CreateTask(func(tk *loopbench.Task) (any, error) {
			_, err := tk.Await(f)
			r.add(name)()
			return nil, err
		})
	}
	callback := func(name string) func(*loopbench.Future) {
		return func(*loopbench.Future) { r.add(name)() }
	}
	f := l.CreateFuture()
	f.AddDoneCallback(callback("a"))
	t1 := awaiter("task1", f)
	RunOnce(t, l)
	f.AddDoneCallback(callback("b"))
	f.SetResult(nil)
	complete(t, l, t1)
	r.want(t, "a", "task1", "b")

	r.got = nil
	g := l.CreateFuture()
	t2 := awaiter("task2", g)
	RunOnce(t, l)
	g.AddDoneCallback(callback("c"))
	t3 := awaiter("task3", g)
	RunOnce(t, l)
	g.AddDoneCallback(callback("d"))
	g.SetResult(nil)
	complete(t, l, t2)
	complete(t, l, t3)
	r.want(t, "task2", "c", "task3", "d")
}

func testTaskFirstStep(t *testing.T, l *loopbench.Loop) {
	var r recorder
	l.CallSoon(r.add("before"))
	task := l.CreateTask(func(*loopbench.Task) (any, error) { r.add("task")(); return 7, nil })
	r.want(t)
	l.CallSoon(r.add("after"))
	if v, err := complete(t, l, task); v != 7 || err != nil {
		t.Fatalf("task result %v, %v", v, err)
	}
	r.want(t, "before", "task", "after")
}

func testAwaitDone(t *testing.T, l *loopbench.Loop) {
	done := l.CreateFuture()
	done.SetResult("ok")
	task := l.CreateTask(func(tk *loopbench.Task) (any, error) {
		ran := false
		l.CallSoon(func() { ran = true })
		v, err := tk.Await(done)
		if ran {
			return nil, errors.New("awaiting a done future switched to the loop")
		}
		return v, err
	})
	if v, err := complete(t, l, task); v != "ok" || err != nil {
		t.Fatalf("task = %v, %v", v, err)
	}
}

func testSleepZero(t *testing.T, l *loopbench.Loop) {
	var r recorder
	task := l.CreateTask(func(tk *loopbench.Task) (any, error) {
		l.CallSoon(func() { r.add("a")(); l.CallSoon(r.add("b")) })
		if err := loopbench.Sleep(tk, 0); err != nil {
			return nil, err
		}
		r.add("resumed")()
		return nil, nil
	})
	if _, err := complete(t, l, task); err != nil {
		t.Fatal(err)
	}
	r.want(t, "a", "resumed", "b")
}

func testSleepOrder(t *testing.T, l *loopbench.Loop) {
	var r recorder
	var tasks []loopbench.Awaitable
	base := l.Time()
	for _, ms := range []int{150, 50, 100} {
		tasks = append(tasks, l.CreateTask(func(tk *loopbench.Task) (any, error) {
			// Deadlines from one base, so a slow start (up to 50 ms on a
			// loaded machine) cannot reorder them.
			start := l.Time()
			d := base + time.Duration(ms)*time.Millisecond - start
			if err := loopbench.Sleep(tk, d); err != nil {
				return nil, err
			}
			if l.Time()-start < d {
				t.Errorf("Sleep(%v) returned after %v", d, l.Time()-start)
			}
			r.add(time.Duration(ms).String())()
			return nil, nil
		}))
	}
	if _, err := complete(t, l, loopbench.Gather(l, tasks...)); err != nil {
		t.Fatal(err)
	}
	r.want(t, "50ns", "100ns", "150ns")
}

func testCancelAwaiting(t *testing.T, l *loopbench.Loop) {
	inner := l.CreateFuture()
	task := l.CreateTask(func(tk *loopbench.Task) (any, error) { return tk.Await(inner) })
	RunOnce(t, l) // the task starts and waits
	if !task.Cancel("stop") {
		t.Fatal("Cancel of a waiting task = false")
	}
	if !inner.Cancelled() {
		t.Fatal("cancelling the task did not cancel the future it awaits")
	}
	_, err := complete(t, l, task)
	if !errors.Is(err, loopbench.ErrCancelled) || !task.Cancelled() {
		t.Fatalf("task error %v, Cancelled %v", err, task.Cancelled())
	}
	if task.Cancel("again") {
		t.Fatal("Cancel of a done task = true")
	}
	checkCancelled(t, "the task", err, "stop")
	_, err = inner.Result()
	checkCancelled(t, "the future it awaited", err, "stop")
	shielded := l.CreateFuture()
	shield := loopbench.Shield(l, shielded)
	shielded.Cancel("inner")
	complete(t, l, shield)
	_, err = shield.Result()
	checkCancelled(t, "a shield of a cancelled future", err, "inner")
}

func testCancelHandled(t *testing.T, l *loopbench.Loop) {
	inner := l.CreateFuture()
	task := l.CreateTask(func(tk *loopbench.Task) (any, error) {
		if _, err := tk.Await(inner); !errors.Is(err, loopbench.ErrCancelled) {
			return nil, errors.New("await did not return ErrCancelled")
		}
		return "handled", nil
	})
	RunOnce(t, l)
	task.Cancel("")
	if v, err := complete(t, l, task); v != "handled" || err != nil || task.Cancelled() {
		t.Fatalf("task = %v, %v, Cancelled %v; want a normal result", v, err, task.Cancelled())
	}
}

func testCancelSelf(t *testing.T, l *loopbench.Loop) {
	inner := l.CreateFuture()
	task := l.CreateTask(func(tk *loopbench.Task) (any, error) {
		tk.Cancel("self")
		_, err := tk.Await(inner)
		return nil, err
	})
	_, err := complete(t, l, task)
	if !errors.Is(err, loopbench.ErrCancelled) || !task.Cancelled() || !inner.Cancelled() {
		t.Fatalf("self-cancelled task: %v, Cancelled %v, inner cancelled %v", err, task.Cancelled(), inner.Cancelled())
	}
}

func testCancelBeforeStart(t *testing.T, l *loopbench.Loop) {
	ran := false
	task := l.CreateTask(func(*loopbench.Task) (any, error) { ran = true; return nil, nil })
	task.Cancel("early")
	_, err := complete(t, l, task)
	if ran || !task.Cancelled() || !errors.Is(err, loopbench.ErrCancelled) {
		t.Fatalf("ran %v, cancelled %v, err %v", ran, task.Cancelled(), err)
	}
}

func testCancellingCounts(t *testing.T, l *loopbench.Loop) {
	task := l.CreateTask(func(tk *loopbench.Task) (any, error) {
		for tk.Cancelling() < 2 {
			loopbench.Sleep(tk, 0)
		}
		if tk.Uncancel() != 1 || tk.Uncancel() != 0 || tk.Uncancel() != 0 {
			return nil, errors.New("uncancel counts wrong")
		}
		return "ok", nil
	})
	RunOnce(t, l)
	task.Cancel("")
	task.Cancel("")
	if task.Cancelling() != 2 {
		t.Fatalf("Cancelling = %d after two requests", task.Cancelling())
	}
	// The first Sleep(0) after the request sees ErrCancelled; the loop
	// in the task ignores it and then uncancels twice.
	if v, err := complete(t, l, task); v != "ok" || err != nil {
		t.Fatalf("task = %v, %v", v, err)
	}
}

// testUncancelWithdraws: the Uncancel that brings the count to zero also
// withdraws a cancellation not delivered yet (asyncio since 3.13); one
// that leaves a request pending does not.
func testUncancelWithdraws(t *testing.T, l *loopbench.Loop) {
	task := l.CreateTask(func(tk *loopbench.Task) (any, error) {
		tk.Cancel("")
		tk.Cancel("")
		if n := tk.Uncancel(); n != 1 {
			return nil, fmt.Errorf("after two requests, Uncancel = %d", n)
		}
		if err := loopbench.Sleep(tk, 0); !errors.Is(err, loopbench.ErrCancelled) {
			return nil, fmt.Errorf("Sleep(0) with a request left = %v, want ErrCancelled", err)
		}
		tk.Cancel("")
		if n := tk.Uncancel(); n != 1 {
			return nil, fmt.Errorf("after a third request, Uncancel = %d", n)
		}
		if n := tk.Uncancel(); n != 0 {
			return nil, fmt.Errorf("the last Uncancel = %d", n)
		}
		if err := loopbench.Sleep(tk, 0); err != nil {
			return nil, fmt.Errorf("Sleep(0) after the last Uncancel = %v", err)
		}
		return "ok", nil
	})
	if v, err := complete(t, l, task); v != "ok" || err != nil || task.Cancelled() {
		t.Fatalf("task = %v, %v, Cancelled %v", v, err, task.Cancelled())
	}
}

func testAwaitTask(t *testing.T, l *loopbench.Loop) {
	inner := l.CreateTask(func(tk *loopbench.Task) (any, error) {
		loopbench.Sleep(tk, 0)
		return 5, nil
	})
	outer := l.CreateTask(func(tk *loopbench.Task) (any, error) {
		v, err := tk.Await(inner)
		return v.(int) * 2, err
	})
	if v, err := complete(t, l, outer); v != 10 || err != nil {
		t.Fatalf("outer = %v, %v", v, err)
	}
}

// testTaskNotSettable: a task's future is completed by its function only,
// as asyncio's Task refuses set_result and set_exception; and a done task
// is never reset to pending.
func testTaskNotSettable(t *testing.T, l *loopbench.Loop) {
	f := l.CreateFuture()
	task := l.CreateTask(func(tk *loopbench.Task) (any, error) {
		if _, err := tk.Await(f); err != nil {
			return nil, err
		}
		return "returned", nil
	})
	RunOnce(t, l) // the task awaits f
	if _, ok := any(task).(interface{ SetResult(any) error }); ok {
		t.Error("a Task has SetResult")
	}
	if _, ok := any(task).(interface{ SetException(error) error }); ok {
		t.Error("a Task has SetException")
	}
	if _, ok := any(task).(interface{ Reset() error }); ok {
		t.Error("a Task has Reset")
	}
	for name, err := range map[string]error{
		"SetResult":    task.Future().SetResult("outside"),
		"SetException": task.Future().SetException(errors.New("outside")),
	} {
		if !errors.Is(err, loopbench.ErrInvalidState) || task.Done() {
			t.Fatalf("%s on a pending task = %v, Done %v; want ErrInvalidState", name, err, task.Done())
		}
	}
	f.SetResult(nil)
	if v, err := complete(t, l, task); v != "returned" || err != nil {
		t.Fatalf("task = %v, %v; want what its function returned", v, err)
	}
	if err := task.Future().Reset(); !errors.Is(err, loopbench.ErrInvalidState) || !task.Done() {
		t.Fatalf("Reset of a done task = %v, Done %v; want ErrInvalidState", err, task.Done())
	}
	if err := task.Future().SetResult(1); !errors.Is(err, loopbench.ErrInvalidState) {
		t.Fatalf("SetResult on a done task = %v", err)
	}
}

func testTaskPanic(t *testing.T, l *loopbench.Loop) {
	boom := errors.New("boom")
	task := l.CreateTask(func(tk *loopbench.Task) (any, error) {
		loopbench.Sleep(tk, 0)
		panic(boom)
	})
	_, err := complete(t, l, task)
	var pe *loopbench.PanicError
	if !errors.As(err, &pe) || !errors.Is(err, boom) || len(pe.Stack) == 0 {
		t.Fatalf("task error %v, want a PanicError wrapping boom", err)
	}
	RunOnce(t, l) // the loop goes on
}

// testTaskGoexit: runtime.Goexit in a task's function ends the task with
// ErrGoexit; the loop's goroutine and the loop go on.
func testTaskGoexit(t *testing.T, l *loopbench.Loop) {
	task := l.CreateTask(func(tk *loopbench.Task) (any, error) {
		loopbench.Sleep(tk, 0)
		runtime.Goexit()
		return nil, nil
	})
	_, err := complete(t, l, task)
	if !errors.Is(err, loopbench.ErrGoexit) {
		t.Fatalf("task error %v, want ErrGoexit", err)
	}
	var r recorder
	l.CallSoon(r.add("after"))
	RunOnce(t, l)
	r.want(t, "after")
}

func testAwaitErrors(t *testing.T, l *loopbench.Loop) {
	other := New(t, l.Config())
	foreign := other.CreateFuture()
	var self *loopbench.Task
	self = l.CreateTask(func(tk *loopbench.Task) (any, error) {
		if _, err := tk.Await(foreign); err == nil {
			return nil, errors.New("awaited a future of another loop")
		}
		if _, err := tk.Await(self); err == nil {
			return nil, errors.New("awaited itself")
		}
		return "ok", nil
	})
	if v, err := complete(t, l, self); v != "ok" || err != nil {
		t.Fatalf("task = %v, %v", v, err)
	}
	// Outside the task's function.
	f := l.CreateFuture()
	f.SetResult(1)
	if _, err := self.Await(f); err == nil {
		t.Fatal("Await outside the task's function succeeded")
	}
}
