package loopbench_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/loopbench/loopbench"
)

// Sleep(t, 0) yields one iteration: two tasks that sleep 0 between steps
// take turns.
func ExampleSleep() {
	loopbench.Run(loopbench.Config{}, func(t *loopbench.Task) (any, error) {
		other := t.Loop().CreateTask(func(t *loopbench.Task) (any, error) {
			for i := range 2 {
				fmt.Println("other", i)
				loopbench.Sleep(t, 0)
			}
			return nil, nil
		})
		for i := range 2 {
			fmt.Println("main", i)
			loopbench.Sleep(t, 0)
		}
		return t.Await(other)
	})
	// Output:
	// main 0
	// other 0
	// main 1
	// other 1
}

// A StreamReader fed by hand: Read returns io.EOF at the end, so the Go
// read loop ends.
func ExampleNewStreamReader() {
	loopbench.Run(loopbench.Config{}, func(t *loopbench.Task) (any, error) {
		r := loopbench.NewStreamReader(t.Loop(), 0)
		r.FeedData([]byte("hello, world"))
		r.FeedEOF()
		for {
			data, err := r.Read(t, 5)
			if err == io.EOF {
				return nil, nil
			}
			fmt.Printf("%q\n", data)
		}
	})
	// Output:
	// "hello"
	// ", wor"
	// "ld"
}

// A goroutine that may outlive the loop reports to it with
// TryCallSoonThreadsafe, which returns ErrClosed once the loop is closed
// instead of panicking.
func ExampleLoop_TryCallSoonThreadsafe() {
	l, _ := loopbench.New(loopbench.Config{})
	l.Close()
	_, err := l.TryCallSoonThreadsafe(func() {})
	fmt.Println(errors.Is(err, loopbench.ErrClosed))
	// Output: true
}

// Close does not wait for executor jobs; ShutdownDefaultExecutor waits
// for them, up to a timeout.
func ExampleLoop_ShutdownDefaultExecutor() {
	l, _ := loopbench.New(loopbench.Config{})
	defer l.Close()
	job := l.RunInExecutor(func() (any, error) { return "job done", nil })
	_, err := l.RunUntilComplete(l.ShutdownDefaultExecutor(time.Minute))
	fmt.Println(err)
	fmt.Println(job.Result())
	// Output:
	// <nil>
	// job done <nil>
}

// A cancelled task's error carries the cancel message and matches both
// ErrCancelled and context.Canceled.
func ExampleCancelledError() {
	l, _ := loopbench.New(loopbench.Config{})
	defer l.Close()
	task := l.CreateTask(func(t *loopbench.Task) (any, error) { return nil, loopbench.Sleep(t, time.Hour) })
	l.CallSoon(func() { task.Cancel("shutting down") })
	_, err := l.RunUntilComplete(task)
	var ce *loopbench.CancelledError
	fmt.Println(errors.As(err, &ce), ce.Message)
	fmt.Println(errors.Is(err, loopbench.ErrCancelled), errors.Is(err, context.Canceled))
	// Output:
	// true shutting down
	// true true
}

// Wait gives back a task's Future; Task.Future tells which task it is.
func ExampleTask_Future() {
	loopbench.Run(loopbench.Config{}, func(t *loopbench.Task) (any, error) {
		l := t.Loop()
		quick := l.CreateTask(func(t *loopbench.Task) (any, error) { return "quick", nil })
		slow := l.CreateTask(func(t *loopbench.Task) (any, error) { return nil, loopbench.Sleep(t, time.Hour) })
		done, _, err := loopbench.Wait(t, []loopbench.Awaitable{slow, quick}, loopbench.FirstCompleted, loopbench.Never)
		fmt.Println(len(done), done[0] == quick.Future(), err)
		return nil, nil
	})
	// Output: 1 true <nil>
}
