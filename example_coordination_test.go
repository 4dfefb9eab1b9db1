package loopbench_test

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/loopbench/loopbench"
)

// Producer and consumers with a bounded Queue, as in the asyncio docs:
// workers take items until the queue is shut down, Join waits until every
// item is processed (TaskDone).
func ExampleQueue() {
	l, _ := loopbench.New(loopbench.Config{})
	defer l.Close()
	q := loopbench.NewQueue[int](2) // Put waits while 2 items are queued
	total := 0
	worker := func(t *loopbench.Task) (any, error) {
		for {
			n, err := q.Get(t)
			if errors.Is(err, loopbench.ErrQueueShutdown) {
				return nil, nil
			}
			total += n
			q.TaskDone()
		}
	}
	workers := []loopbench.Awaitable{l.CreateTask(worker), l.CreateTask(worker)}
	main := l.CreateTask(func(t *loopbench.Task) (any, error) {
		for n := 1; n <= 10; n++ {
			if err := q.Put(t, n); err != nil {
				return nil, err
			}
		}
		if err := q.Join(t); err != nil {
			return nil, err
		}
		q.Shutdown(false) // the workers' Get returns ErrQueueShutdown
		return t.Await(loopbench.Gather(l, workers...))
	})
	_, err := l.RunUntilComplete(main)
	fmt.Println(total, err)
	// Output: 55 <nil>
}

// A TaskGroup fans work out and waits for all of it; the first failure
// cancels the rest, and the group returns every failure joined.
func ExampleWithTaskGroup() {
	l, _ := loopbench.New(loopbench.Config{})
	defer l.Close()
	main := l.CreateTask(func(t *loopbench.Task) (any, error) {
		var tasks []*loopbench.Task
		err := loopbench.WithTaskGroup(t, func(g *loopbench.TaskGroup) error {
			for i := 1; i <= 3; i++ {
				tasks = append(tasks, g.CreateTask(func(t *loopbench.Task) (any, error) {
					if err := loopbench.Sleep(t, time.Duration(i)*time.Millisecond); err != nil {
						return nil, err
					}
					return i * i, nil
				}))
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
		var squares []int
		for _, task := range tasks {
			n, _ := loopbench.AwaitValue[int](t, task) // done: no wait
			squares = append(squares, n)
		}
		fmt.Println(squares)
		// A failure cancels the sibling that still sleeps.
		err = loopbench.WithTaskGroup(t, func(g *loopbench.TaskGroup) error {
			g.CreateTask(func(t *loopbench.Task) (any, error) { return nil, loopbench.Sleep(t, time.Hour) })
			g.CreateTask(func(t *loopbench.Task) (any, error) { return nil, errors.New("disk full") })
			return nil
		})
		fmt.Println(err)
		return nil, nil
	})
	l.RunUntilComplete(main)
	// Output:
	// [1 4 9]
	// disk full
}

// A Semaphore bounds a worker pool: of ten jobs, at most three run at
// once.
func ExampleSemaphore() {
	l, _ := loopbench.New(loopbench.Config{})
	defer l.Close()
	sem := loopbench.NewSemaphore(3)
	running, most := 0, 0
	var jobs []loopbench.Awaitable
	for range 10 {
		jobs = append(jobs, l.CreateTask(func(t *loopbench.Task) (any, error) {
			if err := sem.Acquire(t); err != nil {
				return nil, err
			}
			defer sem.Release()
			running++
			most = max(most, running)
			err := loopbench.Sleep(t, time.Millisecond) // the job's I/O
			running--
			return nil, err
		}))
	}
	_, err := l.RunUntilComplete(loopbench.Gather(l, jobs...))
	fmt.Println("at most", most, "at once;", err)
	// Output: at most 3 at once; <nil>
}

// WithTimeout bounds the awaits of a block, as asyncio.timeout does: the
// deadline cancels the await in progress and the block returns
// ErrTimeout.
func ExampleWithTimeout() {
	l, _ := loopbench.New(loopbench.Config{})
	defer l.Close()
	main := l.CreateTask(func(t *loopbench.Task) (any, error) {
		err := loopbench.WithTimeout(t, time.Millisecond, func(*loopbench.TimeoutScope) error {
			return loopbench.Sleep(t, time.Hour)
		})
		return nil, err
	})
	_, err := l.RunUntilComplete(main)
	fmt.Println(errors.Is(err, loopbench.ErrTimeout), main.Cancelled())
	// Output: true false
}

// GatherValues awaits tasks of one result type and returns their results
// typed, in argument order.
func ExampleGatherValues() {
	l, _ := loopbench.New(loopbench.Config{})
	defer l.Close()
	square := func(n int) *loopbench.Task {
		return l.CreateTask(func(t *loopbench.Task) (any, error) { return n * n, loopbench.Sleep(t, 0) })
	}
	main := l.CreateTask(func(t *loopbench.Task) (any, error) {
		squares, err := loopbench.GatherValues[int](t, square(2), square(3), square(4))
		fmt.Println(squares, err)
		return nil, err
	})
	l.RunUntilComplete(main)
	// Output: [4 9 16] <nil>
}

// A task's Context carries its cancellation to code that takes a
// context, here a function run on the executor.
func ExampleTask_Context() {
	l, _ := loopbench.New(loopbench.Config{})
	defer l.Close()
	task := l.CreateTask(func(t *loopbench.Task) (any, error) {
		ctx := t.Context()
		f := l.RunInExecutor(func() (any, error) {
			<-ctx.Done() // a context-aware library call would return here
			return nil, context.Cause(ctx)
		})
		return t.Await(f)
	})
	l.CallLater(time.Millisecond, func() { task.Cancel("shutting down") })
	_, err := l.RunUntilComplete(task)
	fmt.Println(err)
	// Output: loopbench: cancelled: shutting down
}
