package looptest

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/loopbench/loopbench"
)

// child returns a group task that sleeps d and then returns v, err,
// logging how it ended.
func child(g *loopbench.TaskGroup, lg *events, name string, d time.Duration, v any, err error) *loopbench.Task {
	return g.CreateTask(func(t *loopbench.Task) (any, error) {
		if e := loopbench.Sleep(t, d); e != nil {
			lg.add("%s %v", name, e)
			return nil, e
		}
		lg.add("%s done", name)
		return v, err
	})
}

func testGroupResults(t *testing.T, l *loopbench.Loop) {
	var lg events
	var a, b *loopbench.Task
	_, err := complete(t, l, run(l, func(t *loopbench.Task) error {
		return loopbench.WithTaskGroup(t, func(g *loopbench.TaskGroup) error {
			// b yields one iteration, a waits for a timer: b is done
			// first however slow the machine (a deadline gap is not).
			a = child(g, &lg, "a", 2*time.Millisecond, 1, nil)
			b = child(g, &lg, "b", 0, 2, nil)
			return nil
		})
	}))
	if err != nil || !a.Done() || !b.Done() {
		t.Fatalf("group = %v; children done %v %v", err, a.Done(), b.Done())
	}
	lg.want(t, "b done", "a done")
	if v, _ := a.Result(); v != 1 {
		t.Fatalf("a = %v", v)
	}
}

func testGroupFailure(t *testing.T, l *loopbench.Loop) {
	var lg events
	bad := errors.New("bad")
	_, err := complete(t, l, run(l, func(t *loopbench.Task) error {
		err := loopbench.WithTaskGroup(t, func(g *loopbench.TaskGroup) error {
			child(g, &lg, "slow", time.Hour, nil, nil)
			child(g, &lg, "fails", 0, nil, bad)
			return nil
		})
		lg.add("group returned")
		return err
	}))
	if !errors.Is(err, bad) || errors.Is(err, loopbench.ErrCancelled) {
		t.Fatalf("group error %v, want bad alone (the siblings' cancellations left out)", err)
	}
	lg.want(t, "fails done", "slow loopbench: cancelled", "group returned")
}

// testGroupErrorsJoined: children failing in the same iteration, before
// the first failure cancels anyone, are all reported.
func testGroupErrorsJoined(t *testing.T, l *loopbench.Loop) {
	var lg events
	e1, e2 := errors.New("one"), errors.New("two")
	_, err := complete(t, l, run(l, func(t *loopbench.Task) error {
		return loopbench.WithTaskGroup(t, func(g *loopbench.TaskGroup) error {
			child(g, &lg, "one", 0, nil, e1)
			child(g, &lg, "two", 0, nil, e2)
			return nil
		})
	}))
	if !errors.Is(err, e1) || !errors.Is(err, e2) {
		t.Fatalf("group error %v, want both joined", err)
	}
}

// testGroupBodyError: an error of the body cancels the children and is
// joined with theirs.
func testGroupBodyError(t *testing.T, l *loopbench.Loop) {
	var lg events
	body := errors.New("body")
	_, err := complete(t, l, run(l, func(t *loopbench.Task) error {
		return loopbench.WithTaskGroup(t, func(g *loopbench.TaskGroup) error {
			child(g, &lg, "slow", time.Hour, nil, nil)
			if err := loopbench.Sleep(t, 0); err != nil { // the child starts
				return err
			}
			return body
		})
	}))
	if !errors.Is(err, body) {
		t.Fatalf("group error %v, want the body's", err)
	}
	lg.want(t, "slow loopbench: cancelled")
}

// testGroupBodyPanics: a panic in the body cancels the group's tasks and
// waits for them before it goes on: the task running the group fails
// with the panic, and no child outlives the group.
func testGroupBodyPanics(t *testing.T, l *loopbench.Loop) {
	var lg events
	var kids []*loopbench.Task
	parent := run(l, func(t *loopbench.Task) error {
		return loopbench.WithTaskGroup(t, func(g *loopbench.TaskGroup) error {
			kids = append(kids, child(g, &lg, "slow", time.Hour, nil, nil), child(g, &lg, "quick", 0, nil, nil))
			if err := loopbench.Sleep(t, 0); err != nil { // the children start
				return err
			}
			panic("boom")
		})
	})
	parent.AddDoneCallback(func(*loopbench.Future) {
		for i, k := range kids {
			lg.add("parent done: child %d done %v", i, k.Done())
		}
	})
	_, err := complete(t, l, parent)
	var pe *loopbench.PanicError
	if !errors.As(err, &pe) || pe.Value != "boom" {
		t.Fatalf("parent = %v, want the body's panic", err)
	}
	iterations(t, l, 1)
	lg.want(t, "quick loopbench: cancelled", "slow loopbench: cancelled", "parent done: child 0 done true", "parent done: child 1 done true")
}

// testGroupParentCancelled: cancelling the task that runs the group
// cancels the group's tasks; the group returns ErrCancelled once they are
// done.
func testGroupParentCancelled(t *testing.T, l *loopbench.Loop) {
	var lg events
	parent := run(l, func(t *loopbench.Task) error {
		err := loopbench.WithTaskGroup(t, func(g *loopbench.TaskGroup) error {
			child(g, &lg, "a", time.Hour, nil, nil)
			child(g, &lg, "b", time.Hour, nil, nil)
			return nil
		})
		lg.add("group %v", err)
		return err
	})
	iterations(t, l, 3)
	parent.Cancel("")
	_, err := complete(t, l, parent)
	if !errors.Is(err, loopbench.ErrCancelled) || !parent.Cancelled() {
		t.Fatalf("parent = %v, Cancelled %v", err, parent.Cancelled())
	}
	lg.want(t, "a loopbench: cancelled", "b loopbench: cancelled", "group loopbench: cancelled")
}

func testGroupNested(t *testing.T, l *loopbench.Loop) {
	var lg events
	bad := errors.New("inner")
	_, err := complete(t, l, run(l, func(t *loopbench.Task) error {
		return loopbench.WithTaskGroup(t, func(outer *loopbench.TaskGroup) error {
			child(outer, &lg, "outer-sibling", time.Hour, nil, nil)
			outer.CreateTask(func(t *loopbench.Task) (any, error) {
				err := loopbench.WithTaskGroup(t, func(inner *loopbench.TaskGroup) error {
					child(inner, &lg, "inner-sibling", time.Hour, nil, nil)
					child(inner, &lg, "inner-fails", 0, nil, bad)
					return nil
				})
				lg.add("inner group: %v", err)
				return nil, err
			})
			return nil
		})
	}))
	if !errors.Is(err, bad) {
		t.Fatalf("outer group = %v, want the inner failure", err)
	}
	lg.want(t, "inner-fails done", "inner-sibling loopbench: cancelled",
		"inner group: inner", "outer-sibling loopbench: cancelled")
}

func testGroupClosed(t *testing.T, l *loopbench.Loop) {
	var kept *loopbench.TaskGroup
	complete(t, l, run(l, func(t *loopbench.Task) error {
		return loopbench.WithTaskGroup(t, func(g *loopbench.TaskGroup) error { kept = g; return nil })
	}))
	defer func() {
		if recover() == nil {
			t.Fatal("CreateTask on a finished group did not panic")
		}
	}()
	kept.CreateTask(func(*loopbench.Task) (any, error) { return nil, nil })
}

func testWaitModes(t *testing.T, l *loopbench.Loop) {
	bad := errors.New("bad")
	names := func(fs []*loopbench.Future, all map[*loopbench.Future]string) string {
		var s []string
		for _, f := range fs {
			s = append(s, all[f])
		}
		return fmt.Sprint(s)
	}
	for _, c := range []struct {
		mode          loopbench.WaitMode
		done, pending string
	}{
		{loopbench.FirstCompleted, "[fast]", "[fails slow]"},
		{loopbench.FirstException, "[fails fast]", "[slow]"},
		{loopbench.AllCompleted, "[fails fast slow]", "[]"},
	} {
		// Futures completed one per step, so that no two finish in the
		// same iteration whatever the machine's speed.
		fast, fails, slow := l.CreateFuture(), l.CreateFuture(), l.CreateFuture()
		all := map[*loopbench.Future]string{fast: "fast", fails: "fails", slow: "slow"}
		var done, pending []*loopbench.Future
		waiter := run(l, func(t *loopbench.Task) error {
			var err error
			done, pending, err = loopbench.Wait(t, []loopbench.Awaitable{fails, fast, slow}, c.mode, loopbench.Never)
			return err
		})
		steps := []func(){func() { fast.SetResult(1) }, func() { fails.SetException(bad) }, func() { slow.SetResult(3) }}
		for i := 0; !waiter.Done(); i++ {
			iterations(t, l, 2)
			if waiter.Done() {
				break
			}
			if i == len(steps) {
				t.Fatalf("mode %d: Wait still waits with every future done", c.mode)
			}
			steps[i]()
		}
		_, err := waiter.Result()
		// Both lists keep the order of the arguments.
		if err != nil || names(done, all) != c.done || names(pending, all) != c.pending {
			t.Errorf("mode %d: done %s pending %s (%v), want %s %s", c.mode, names(done, all), names(pending, all), err, c.done, c.pending)
		}
		for _, f := range pending {
			if f.Done() {
				t.Errorf("mode %d: a pending future is done", c.mode)
			}
		}
		if fails.Done() && !slow.Done() {
			slow.SetResult(3)
		} else if !fast.Done() {
			t.Fatalf("mode %d: Wait returned before any future was done", c.mode)
		}
		for _, f := range []*loopbench.Future{fast, fails, slow} {
			if f.Cancelled() {
				t.Errorf("mode %d: Wait cancelled %s", c.mode, all[f])
			}
		}
	}
}

// testWaitAlreadyDone: futures done before Wait count at once.
func testWaitAlreadyDone(t *testing.T, l *loopbench.Loop) {
	failed, pending := l.CreateFuture(), l.CreateFuture()
	failed.SetException(errors.New("bad"))
	var done, left []*loopbench.Future
	complete(t, l, run(l, func(t *loopbench.Task) error {
		var err error
		done, left, err = loopbench.Wait(t, []loopbench.Awaitable{pending, failed}, loopbench.FirstException, loopbench.Never)
		return err
	}))
	if len(done) != 1 || done[0] != failed || len(left) != 1 || left[0] != pending {
		t.Fatalf("Wait with a failed future already done: done %v pending %v", done, left)
	}
}

func testWaitTimeout(t *testing.T, l *loopbench.Loop) {
	never := l.CreateFuture()
	quick := sleeper(l, 0, 1, nil)
	var done, pending []*loopbench.Future
	complete(t, l, run(l, func(t *loopbench.Task) error {
		var err error
		done, pending, err = loopbench.Wait(t, []loopbench.Awaitable{never, quick}, loopbench.AllCompleted, time.Millisecond)
		return err
	}))
	if len(done) != 1 || done[0] != quick.Future() || len(pending) != 1 || pending[0] != never || never.Cancelled() {
		t.Fatalf("Wait with timeout: done %v pending %v", done, pending)
	}
}

// testWaitTimeoutZero: a timeout of 0 returns at once, without a
// suspension, with the futures as they are (asyncio's timeout=0).
func testWaitTimeoutZero(t *testing.T, l *loopbench.Loop) {
	never, finished := l.CreateFuture(), l.CreateFuture()
	finished.SetResult(1)
	var lg events
	complete(t, l, run(l, func(t *loopbench.Task) error {
		l.CallSoon(func() { lg.add("next iteration") })
		done, pending, err := loopbench.Wait(t, []loopbench.Awaitable{never, finished}, loopbench.AllCompleted, 0)
		lg.add("Wait returned %d done, %d pending, %v", len(done), len(pending), err)
		return nil
	}))
	lg.want(t, "Wait returned 1 done, 1 pending, <nil>", "next iteration")
}

// testAsCompleted: futures finish in the order a, b, c, one per iteration
// (a chain of callbacks, so no timer gap a loaded machine could close),
// and AsCompleted yields them in that order, not in argument order.
func testAsCompleted(t *testing.T, l *loopbench.Loop) {
	c, a, b := l.CreateFuture(), l.CreateFuture(), l.CreateFuture()
	var got []any
	_, err := complete(t, l, run(l, func(t *loopbench.Task) error {
		l.CallSoon(func() {
			a.SetResult("a")
			l.CallSoon(func() {
				b.SetResult("b")
				l.CallSoon(func() { c.SetResult("c") })
			})
		})
		for f, err := range loopbench.AsCompleted(t, c, a, b) {
			if err != nil {
				return err
			}
			v, _ := f.Result()
			got = append(got, v)
		}
		return nil
	}))
	if err != nil || fmt.Sprint(got) != "[a b c]" {
		t.Fatalf("AsCompleted gave %v, %v; want [a b c]", got, err)
	}
}

func testShield(t *testing.T, l *loopbench.Loop) {
	inner := sleeper(l, time.Millisecond, "inner", nil)
	outer := run(l, func(t *loopbench.Task) error {
		_, err := t.Await(loopbench.Shield(l, inner))
		return err
	})
	iterations(t, l, 2)
	outer.Cancel("")
	if _, err := complete(t, l, outer); !errors.Is(err, loopbench.ErrCancelled) {
		t.Fatalf("shielded await = %v, want ErrCancelled", err)
	}
	if v, err := complete(t, l, inner); v != "inner" || err != nil {
		t.Fatalf("inner = %v, %v: the shield let the cancellation through", v, err)
	}
}

func testTimeoutExpires(t *testing.T, l *loopbench.Loop) {
	var expired bool
	task := run(l, func(t *loopbench.Task) error {
		err := loopbench.WithTimeout(t, time.Millisecond, func(s *loopbench.TimeoutScope) error {
			err := loopbench.Sleep(t, time.Hour)
			expired = s.Expired()
			return err
		})
		if t.Cancelling() != 0 {
			return fmt.Errorf("after the timeout, Cancelling = %d", t.Cancelling())
		}
		return err
	})
	_, err := complete(t, l, task)
	if !errors.Is(err, loopbench.ErrTimeout) || !expired || task.Cancelled() {
		t.Fatalf("timeout = %v (expired %v, task cancelled %v)", err, expired, task.Cancelled())
	}
	ok := run(l, func(t *loopbench.Task) error {
		return loopbench.WithTimeout(t, time.Hour, func(*loopbench.TimeoutScope) error { return loopbench.Sleep(t, 0) })
	})
	if _, err := complete(t, l, ok); err != nil {
		t.Fatalf("a timeout that did not expire = %v", err)
	}
	// Never, or a delay past the clock's range, is no deadline at all.
	for _, d := range []time.Duration{loopbench.Never, loopbench.Never - 1} {
		var when time.Duration
		none := run(l, func(t *loopbench.Task) error {
			return loopbench.WithTimeout(t, d, func(s *loopbench.TimeoutScope) error {
				when = s.When()
				return loopbench.Sleep(t, time.Millisecond)
			})
		})
		if _, err := complete(t, l, none); err != nil || when != loopbench.Never {
			t.Fatalf("WithTimeout(%v) = %v with deadline %v, want no deadline", d, err, when)
		}
	}
}

func testTimeoutReschedule(t *testing.T, l *loopbench.Loop) {
	var slept int
	task := run(l, func(t *loopbench.Task) error {
		return loopbench.WithTimeout(t, time.Millisecond, func(s *loopbench.TimeoutScope) error {
			s.Reschedule(loopbench.Never)
			if s.When() != loopbench.Never {
				return fmt.Errorf("after Reschedule(Never), When = %v", s.When())
			}
			if err := loopbench.Sleep(t, 3*time.Millisecond); err != nil {
				return err
			}
			slept++
			s.Reschedule(l.Time() + time.Millisecond)
			if err := loopbench.Sleep(t, time.Hour); err != nil {
				return err
			}
			slept++
			return nil
		})
	})
	if _, err := complete(t, l, task); !errors.Is(err, loopbench.ErrTimeout) || slept != 1 {
		t.Fatalf("rescheduled timeout = %v after %d sleeps, want ErrTimeout after 1", err, slept)
	}
}

// testTimeoutOuterCancel: a cancellation from outside the scope stays a
// cancellation.
func testTimeoutOuterCancel(t *testing.T, l *loopbench.Loop) {
	task := run(l, func(t *loopbench.Task) error {
		return loopbench.WithTimeout(t, time.Hour, func(*loopbench.TimeoutScope) error { return loopbench.Sleep(t, time.Hour) })
	})
	iterations(t, l, 2)
	task.Cancel("outside")
	_, err := complete(t, l, task)
	if !errors.Is(err, loopbench.ErrCancelled) || errors.Is(err, loopbench.ErrTimeout) {
		t.Fatalf("outer cancel = %v, want ErrCancelled", err)
	}
}
