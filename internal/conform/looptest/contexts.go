package looptest

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/loopbench/loopbench"
)

func testTyped(t *testing.T, l *loopbench.Loop) {
	task := l.CreateTask(func(t *loopbench.Task) (any, error) {
		n, err := loopbench.AwaitValue[int](t, sleeper(l, 0, 42, nil))
		if err != nil || n != 42 {
			return nil, errors.New("AwaitValue[int] of 42 failed")
		}
		if _, err := loopbench.AwaitValue[string](t, sleeper(l, 0, 42, nil)); err == nil ||
			!strings.Contains(err.Error(), "int, not a string") {
			return nil, errors.New("AwaitValue[string] of an int did not name both types: " + err.Error())
		}
		if v, err := loopbench.AwaitValue[error](t, sleeper(l, 0, nil, nil)); v != nil || err != nil {
			return nil, errors.New("AwaitValue of nil is not the zero value")
		}
		xs, err := loopbench.GatherValues[string](t, sleeper(l, time.Millisecond, "a", nil), sleeper(l, 0, "b", nil))
		if err != nil || len(xs) != 2 || xs[0] != "a" || xs[1] != "b" {
			return nil, errors.New("GatherValues[string] failed")
		}
		if _, err := loopbench.GatherValues[string](t, sleeper(l, 0, "a", nil), sleeper(l, 0, 2, nil)); err == nil ||
			!strings.HasPrefix(err.Error(), "result 1:") {
			return nil, errors.New("GatherValues with a wrong type did not name the result")
		}
		return "ok", nil
	})
	if v, err := complete(t, l, task); v != "ok" || err != nil {
		t.Fatal(err)
	}
}

func testTaskContext(t *testing.T, l *loopbench.Loop) {
	var ctx context.Context
	task := run(l, func(t *loopbench.Task) error {
		ctx = t.Context()
		return loopbench.Sleep(t, time.Hour)
	})
	iterations(t, l, 2)
	if ctx.Err() != nil {
		t.Fatal("the context of a running task is done")
	}
	task.Cancel("enough")
	if !errors.Is(context.Cause(ctx), loopbench.ErrCancelled) || !strings.Contains(context.Cause(ctx).Error(), "enough") {
		t.Fatalf("cause %v after Cancel, want ErrCancelled with the message", context.Cause(ctx))
	}
	complete(t, l, task)
	// A task's context ends with the task.
	var c2 context.Context
	complete(t, l, run(l, func(t *loopbench.Task) error { c2 = t.Context(); return nil }))
	if c2.Err() == nil || errors.Is(context.Cause(c2), loopbench.ErrCancelled) {
		t.Fatalf("context of a finished task: %v, cause %v", c2.Err(), context.Cause(c2))
	}
	// Context-aware code run through RunInExecutor sees the cancellation.
	worker := run(l, func(t *loopbench.Task) error {
		ctx := t.Context()
		f := l.RunInExecutor(func() (any, error) {
			<-ctx.Done()
			return nil, context.Cause(ctx)
		})
		_, err := t.Await(loopbench.Shield(l, f))
		if !errors.Is(err, loopbench.ErrCancelled) {
			return errors.New("the task was not cancelled")
		}
		t.Uncancel()
		_, err = t.Await(f)
		if errors.Is(err, loopbench.ErrCancelled) && strings.Contains(err.Error(), "stop") {
			return nil // the function saw the cancellation and its message
		}
		return fmt.Errorf("executor function returned %v, want the context's cause", err)
	})
	iterations(t, l, 2)
	worker.Cancel("stop")
	if _, err := complete(t, l, worker); err != nil || worker.Cancelled() {
		t.Fatalf("worker = %v (cancelled %v)", err, worker.Cancelled())
	}
}

func testAwaitContext(t *testing.T, l *loopbench.Loop) {
	ctx, cancel := context.WithCancel(context.Background())
	waiter := run(l, func(t *loopbench.Task) error { return loopbench.AwaitContext(t, ctx) })
	iterations(t, l, 2)
	go cancel()
	if _, err := complete(t, l, waiter); !errors.Is(err, context.Canceled) {
		t.Fatalf("AwaitContext = %v, want context.Canceled", err)
	}
	// Cancelling the task stops the wait; the watching goroutine ends.
	ctx2, cancel2 := context.WithCancel(context.Background())
	defer cancel2()
	w2 := run(l, func(t *loopbench.Task) error { return loopbench.AwaitContext(t, ctx2) })
	iterations(t, l, 2)
	w2.Cancel("")
	if _, err := complete(t, l, w2); !errors.Is(err, loopbench.ErrCancelled) {
		t.Fatalf("cancelled AwaitContext = %v", err)
	}
	// A context already done returns at once.
	if _, err := complete(t, l, run(l, func(t *loopbench.Task) error { return loopbench.AwaitContext(t, ctx) })); !errors.Is(err, context.Canceled) {
		t.Fatalf("AwaitContext of a done context = %v", err)
	}
}

// testContextAfterTimeout: a cancellation withdrawn by WithTimeout ends
// the context it cancelled, not the ones the task asks for after.
func testContextAfterTimeout(t *testing.T, l *loopbench.Loop) {
	var inside, after context.Context
	timed := run(l, func(t *loopbench.Task) error {
		err := loopbench.WithTimeout(t, time.Millisecond, func(*loopbench.TimeoutScope) error {
			inside = t.Context()
			return loopbench.Sleep(t, time.Hour)
		})
		if !errors.Is(err, loopbench.ErrTimeout) {
			return fmt.Errorf("WithTimeout = %v, want ErrTimeout", err)
		}
		if after = t.Context(); after.Err() != nil {
			return fmt.Errorf("the task's context after the handled timeout is done: %v", context.Cause(after))
		}
		return nil
	})
	if _, err := complete(t, l, timed); err != nil {
		t.Fatal(err)
	}
	if inside.Err() == nil || !errors.Is(context.Cause(inside), loopbench.ErrCancelled) {
		t.Fatalf("context inside the expired timeout: %v, cause %v", inside.Err(), context.Cause(inside))
	}
	if after.Err() == nil {
		t.Fatal("the context after the timeout did not end with the task")
	}
}

// checkCancelled checks that err is a cancellation with message msg that
// errors.Is matches to ErrCancelled and context.Canceled, also wrapped.
func checkCancelled(t *testing.T, what string, err error, msg string) {
	t.Helper()
	err = fmt.Errorf("wrapped: %w", err)
	ce, ok := errors.AsType[*loopbench.CancelledError](err)
	switch {
	case !ok:
		t.Errorf("%s: %v is no *CancelledError", what, err)
	case ce.Message != msg:
		t.Errorf("%s: message %q, want %q", what, ce.Message, msg)
	case !errors.Is(err, loopbench.ErrCancelled) || !errors.Is(err, context.Canceled):
		t.Errorf("%s: %v does not match both ErrCancelled and context.Canceled", what, err)
	}
}
