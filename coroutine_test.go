package loopbench

import (
	"errors"
	"runtime"
	"testing"
)

// runTask runs l until t is done and returns its result.
func runTask(t *testing.T, l *Loop, task *Task) (any, error) {
	t.Helper()
	v, err := l.RunUntilComplete(task.Future())
	if errors.Is(err, ErrStoppedBeforeDone) {
		t.Fatal(err)
	}
	return v, err
}

// A finished task's coroutine runs the next task, whatever way the
// function ended, except with a Goexit, which ends the coroutine.
func TestCoroutineReuse(t *testing.T) {
	eachConfig(t, func(t *testing.T, l *Loop, _ *recordingSelector) {
		value := func(v any) func(*Task) (any, error) {
			return func(tk *Task) (any, error) {
				if err := Sleep(tk, 0); err != nil {
					return nil, err
				}
				return v, nil
			}
		}
		cases := []struct {
			name   string
			fn     func(*Task) (any, error)
			cancel bool // before its first step
			reused bool
		}{
			{"returned", value(1), false, true},
			{"panicked", func(*Task) (any, error) { panic("boom") }, false, true},
			{"cancelled before start", value(2), true, true},
			{"Goexit", func(*Task) (any, error) { runtime.Goexit(); return nil, nil }, false, false},
		}
		for i, c := range cases {
			task := l.CreateTask(c.fn)
			co := task.co
			if c.cancel {
				task.Cancel("")
			}
			runTask(t, l, task)
			parked := len(l.c.coroutines().idle) == 1 && l.c.coroutines().idle[0] == co
			if parked != c.reused || len(l.c.coroutines().idle) > 1 {
				t.Fatalf("%s: coroutine parked %v (%d idle), want %v", c.name, parked, len(l.c.coroutines().idle), c.reused)
			}
			next := l.CreateTask(value(i))
			if (next.co == co) != c.reused {
				t.Fatalf("%s: next task on the same coroutine %v, want %v", c.name, next.co == co, c.reused)
			}
			if v, err := runTask(t, l, next); v != i || err != nil {
				t.Fatalf("%s: next task = %v, %v; want %d", c.name, v, err, i)
			}
			if len(l.c.coroutines().idle) != 1 {
				t.Fatalf("%s: %d idle coroutines after the next task, want 1", c.name, len(l.c.coroutines().idle))
			}
		}
	})
}

// The pool keeps at most maxIdleCoroutines; Close ends them.
func TestCoroutinePoolBound(t *testing.T) {
	l, err := New(Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	var all []Awaitable
	for range maxIdleCoroutines + 10 {
		all = append(all, l.CreateTask(func(tk *Task) (any, error) { return nil, Sleep(tk, 0) }))
	}
	if _, err := l.RunUntilComplete(Gather(l, all...)); err != nil {
		t.Fatal(err)
	}
	if n := len(l.c.coroutines().idle); n != maxIdleCoroutines {
		t.Fatalf("%d idle coroutines after %d tasks, want %d", n, len(all), maxIdleCoroutines)
	}
	if err := l.Close(); err != nil || l.c.coroutines().idle != nil {
		t.Fatalf("Close = %v, %d idle coroutines left", err, len(l.c.coroutines().idle))
	}
}

// TestTaskAllocs: once warmed up, an await round trip allocates nothing,
// and a task's spawn and finish on a pooled coroutine allocate the Task
// and its step, nothing else.
func TestTaskAllocs(t *testing.T) {
	eachConfig(t, func(t *testing.T, l *Loop, _ *recordingSelector) {
		step := func() { l.c.stopping = true; l.runOnce() }
		fut := l.CreateFuture()
		l.CreateTask(func(tk *Task) (any, error) {
			for {
				if _, err := tk.Await(fut); err != nil {
					return nil, err
				}
				if err := fut.Reset(); err != nil {
					return nil, err
				}
			}
		})
		step() // the task starts and awaits fut
		fn := func(*Task) (any, error) { return nil, nil }
		cases := []struct {
			name string
			f    func()
			want float64
		}{
			{"await round trip", func() { fut.SetResult(nil); step() }, 0},
			{"spawn+finish", func() { l.CreateTask(fn); step() }, 2},
		}
		for _, c := range cases {
			c.f() // warm up
			if a := testing.AllocsPerRun(1000, c.f); a != c.want {
				t.Errorf("%s: %.2f allocs/op, want %v", c.name, a, c.want)
			}
		}
	})
}

// TestRunOnceAllocs: asyncio's stop(); run_forever() and RunUntilComplete
// of a done future allocate nothing, on every variant (they used to read
// the goroutine's id from its stack trace twice and keep it in a map).
func TestRunOnceAllocs(t *testing.T) {
	eachConfig(t, func(t *testing.T, l *Loop, _ *recordingSelector) {
		done := l.CreateFuture()
		done.SetResult(nil)
		cases := []struct {
			name string
			f    func()
		}{
			{"Stop+RunForever", func() { l.Stop(); l.RunForever() }},
			{"RunUntilComplete of a done future", func() { l.RunUntilComplete(done) }},
		}
		for _, c := range cases {
			c.f() // warm up
			if a := testing.AllocsPerRun(1000, c.f); a != 0 {
				t.Errorf("%s: %.2f allocs/op, want 0", c.name, a)
			}
		}
	})
}
