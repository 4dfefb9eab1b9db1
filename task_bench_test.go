package loopbench_test

import (
	"fmt"
	"sync"
	"testing"

	"github.com/loopbench/loopbench"
)

// awaitTasks is how many tasks run round trips at once in the task
// benchmarks: enough that one iteration (and its select) serves many.
const awaitTasks = 100

// runTasks starts n tasks that each call the operation newOp returns for
// it until, together, they have done b.N operations, and runs the loop
// until they finish. Only the run is timed.
func runTasks(b *testing.B, l *loopbench.Loop, n int, newOp func() func(t *loopbench.Task) error) {
	left := b.N
	var tasks []loopbench.Awaitable
	for range n {
		op := newOp()
		tasks = append(tasks, l.CreateTask(func(t *loopbench.Task) (any, error) {
			for left > 0 {
				left--
				if err := op(t); err != nil {
					return nil, err
				}
			}
			return nil, nil
		}))
	}
	b.ReportAllocs()
	b.ResetTimer()
	if _, err := l.RunUntilComplete(loopbench.Gather(l, tasks...)); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkAwait is the await round trip: a task schedules a callback
// that completes a future, awaits the future, and is resumed by its done
// callback (two loop iterations, shared by 100 tasks). impl=goroutine is
// the same handoff between goroutines over channels.
func BenchmarkAwait(b *testing.B) {
	for _, cfg := range loopbench.Variants() {
		b.Run(fmt.Sprintf("%v/tasks=%d", cfg, awaitTasks), func(b *testing.B) {
			l := newLoop(b, cfg)
			runTasks(b, l, awaitTasks, func() func(*loopbench.Task) error { return awaitOnce(l) })
		})
	}
	b.Run(fmt.Sprintf("impl=goroutine/tasks=%d", awaitTasks), benchGoroutineAwait)
}

// awaitOnce returns the operation of BenchmarkAwait for one task: the task
// reuses its future and completer, so a round trip allocates nothing.
func awaitOnce(l *loopbench.Loop) func(t *loopbench.Task) error {
	f := l.CreateFuture()
	f.SetResult(nil)
	done := func() { f.SetResult(nil) }
	return func(t *loopbench.Task) error {
		if err := f.Reset(); err != nil {
			return err
		}
		l.CallSoon(done)
		_, err := t.Await(f)
		return err
	}
}

// benchGoroutineAwait: 100 goroutines each send a request to one server
// goroutine (the loop's stand-in), which completes it by sending on the
// requester's channel.
func benchGoroutineAwait(b *testing.B) {
	requests := make(chan chan struct{})
	go func() {
		for reply := range requests {
			reply <- struct{}{}
		}
	}()
	defer close(requests)
	var wg sync.WaitGroup
	per := b.N / awaitTasks
	b.ReportAllocs()
	b.ResetTimer()
	for i := range awaitTasks {
		n := per
		if i == 0 {
			n += b.N % awaitTasks
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			reply := make(chan struct{})
			for range n {
				requests <- reply
				<-reply
			}
		}()
	}
	wg.Wait()
}

// BenchmarkSleep0 is the sleep(0) round trip: a task yields one iteration
// and is resumed, 100 tasks at a time.
func BenchmarkSleep0(b *testing.B) {
	for _, cfg := range loopbench.Variants() {
		b.Run(fmt.Sprintf("%v/tasks=%d", cfg, awaitTasks), func(b *testing.B) {
			l := newLoop(b, cfg)
			runTasks(b, l, awaitTasks, func() func(*loopbench.Task) error {
				return func(t *loopbench.Task) error { return t.Sleep(0) }
			})
		})
	}
}

// BenchmarkTaskSpawn is the cost of creating a task that returns at once
// and of finishing it, 100 created per iteration; impl=goroutine starts a
// goroutine and waits for it.
func BenchmarkTaskSpawn(b *testing.B) {
	fn := func(*loopbench.Task) (any, error) { return nil, nil }
	for _, cfg := range loopbench.Variants() {
		b.Run(fmt.Sprintf("%v/batch=%d", cfg, awaitTasks), func(b *testing.B) {
			l := newLoop(b, cfg)
			drive(b, l, awaitTasks, func(n int) {
				for range n {
					l.CreateTask(fn)
				}
			})
		})
	}
	b.Run(fmt.Sprintf("impl=goroutine/batch=%d", awaitTasks), func(b *testing.B) {
		var wg sync.WaitGroup
		b.ReportAllocs()
		for i := 0; i < b.N; i += awaitTasks {
			for range min(awaitTasks, b.N-i) {
				wg.Add(1)
				go wg.Done()
			}
			wg.Wait()
		}
	})
}
