package loopbench

import (
	"context"
	"fmt"
)

// AwaitValue awaits aw and returns its result as a T: the typed form of
// t.Await. A result of another type is an error naming both types; a nil
// result is T's zero value.
func AwaitValue[T any](t *Task, aw Awaitable) (T, error) {
	var zero T
	v, err := t.Await(aw)
	if err != nil {
		return zero, err
	}
	return as[T](v)
}

// GatherValues awaits every aw, as Gather, and returns their results as
// []T, in the order given; the first failure fails it.
func GatherValues[T any](t *Task, aws ...Awaitable) ([]T, error) {
	v, err := t.Await(Gather(t.fut.loop, aws...))
	if err != nil {
		return nil, err
	}
	all := v.([]any)
	out := make([]T, len(all))
	for i, x := range all {
		if out[i], err = as[T](x); err != nil {
			return nil, fmt.Errorf("result %d: %w", i, err)
		}
	}
	return out, nil
}

func as[T any](v any) (T, error) {
	var zero T
	if v == nil {
		return zero, nil
	}
	x, ok := v.(T)
	if !ok {
		return zero, fmt.Errorf("loopbench: result is a %T, not a %T", v, zero)
	}
	return x, nil
}

// Context returns a context cancelled when the task is cancelled (its
// cause is then a *CancelledError with the cancel message) or finishes
// (cause context.Canceled): for code the task runs through RunInExecutor
// that takes a context. It is scoped to the cancellation: once a
// cancellation is withdrawn (the last Uncancel, which WithTimeout and
// WithTaskGroup make when they handle their own), the context it ended
// stays ended, since a context cannot be revived, and the next call to
// Context returns a new, live one. So call Context where the context is
// needed, rather than keeping one across such a block. Call Context on
// the loop's goroutine; the context it returns, like every context, is
// safe to use from any goroutine.
func (t *Task) Context() context.Context {
	if t.ctx == nil {
		t.ctx, t.ctxCancel = context.WithCancelCause(context.Background())
		switch {
		case t.fut.state != pending:
			t.ctxCancel(nil)
		case t.ncancels > 0:
			t.ctxCancel(cancelledError(t.cancelMsg))
		}
	}
	return t.ctx
}

// AwaitContext suspends t until ctx is done, and returns ctx.Err(): a
// task waiting on a cancellation from outside the loop. If t is cancelled
// first it returns ErrCancelled. The context's end wakes the loop with
// CallSoonThreadsafe (context.AfterFunc: no goroutine waits meanwhile).
func AwaitContext(t *Task, ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	f := t.fut.loop.CreateFuture()
	stop := context.AfterFunc(ctx, func() {
		t.fut.loop.c.tryCallSoonThreadsafe(func() {
			if !f.Done() {
				f.SetResult(nil)
			}
		})
	})
	_, err := t.Await(f)
	stop()
	if err != nil {
		return err
	}
	return ctx.Err()
}
