package bench

import (
	"iter"
	"sync"

	"github.com/loopbench/loopbench"
)

// runTasks starts tasks tasks running the functions newTask returns and
// times the loop until they finish.
func runTasks(t Timer, l *loopbench.Loop, tasks int, newTask func() func(*loopbench.Task) (any, error)) error {
	var all []loopbench.Awaitable
	for range tasks {
		all = append(all, l.CreateTask(newTask()))
	}
	t.ResetTimer()
	_, err := l.RunUntilComplete(loopbench.Gather(l, all...))
	t.StopTimer()
	return err
}

// Await is the task await round trip: each task schedules a callback that
// completes a future, awaits it, and is resumed by the future's done
// callback, tasks at a time so that an iteration serves many; n round
// trips in all. Each task reuses its future (Reset) and completer, so a
// round trip allocates nothing. The loop is written out in the task's
// function, so that a round trip is the await and nothing else.
func Await(t Timer, l *loopbench.Loop, tasks, n int) error {
	left := n
	return runTasks(t, l, tasks, func() func(*loopbench.Task) (any, error) {
		f := l.CreateFuture()
		f.SetResult(nil)
		done := func() { f.SetResult(nil) }
		return func(tk *loopbench.Task) (any, error) {
			for left > 0 {
				left--
				if err := f.Reset(); err != nil {
					return nil, err
				}
				l.CallSoon(done)
				if _, err := tk.Await(f); err != nil {
					return nil, err
				}
			}
			return nil, nil
		}
	})
}

// Sleep0 is the sleep(0) round trip: a task yields one iteration and is
// resumed, tasks at a time, n in all.
func Sleep0(t Timer, l *loopbench.Loop, tasks, n int) error {
	left := n
	return runTasks(t, l, tasks, func() func(*loopbench.Task) (any, error) {
		return func(tk *loopbench.Task) (any, error) {
			for left > 0 {
				left--
				if err := loopbench.Sleep(tk, 0); err != nil {
					return nil, err
				}
			}
			return nil, nil
		}
	})
}

// Spawn is the cost of creating a task that returns at once and of
// finishing it, batch created per iteration. Up to 128 tasks at a time run
// on coroutines that finished tasks left idle in the loop's pool; the
// others start a goroutine, and end it when they finish.
func Spawn(t Timer, l *loopbench.Loop, n, batch int) error {
	fn := func(*loopbench.Task) (any, error) { return nil, nil }
	return drive(t, l, n, batch, func(k int) {
		for range k {
			l.CreateTask(fn)
		}
	})
}

// GoroutineAwait is the goroutine baseline of Await: tasks goroutines each
// send a request to one server goroutine (the loop's stand-in), which
// completes it by sending on the requester's channel.
func GoroutineAwait(t Timer, tasks, n int) {
	requests := make(chan chan struct{})
	go func() {
		for reply := range requests {
			reply <- struct{}{}
		}
	}()
	defer close(requests)
	var wg sync.WaitGroup
	t.ResetTimer()
	for i := range tasks {
		k := n / tasks
		if i < n%tasks {
			k++
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			reply := make(chan struct{})
			for range k {
				requests <- reply
				<-reply
			}
		}()
	}
	wg.Wait()
	t.StopTimer()
}

// PullAwait is the floor under Await: the runtime's coroutine switch
// alone. tasks coroutines (iter.Pull, as tasks use) are resumed round
// robin and each yields at once, n round trips in all, with no loop,
// future or callback in between.
func PullAwait(t Timer, tasks, n int) {
	nexts := make([]func() (struct{}, bool), tasks)
	for i := range nexts {
		next, stop := iter.Pull(func(yield func(struct{}) bool) {
			for yield(struct{}{}) {
			}
		})
		defer stop()
		nexts[i] = next
	}
	t.ResetTimer()
	for i, j := 0, 0; i < n; i++ {
		nexts[j]()
		if j++; j == tasks {
			j = 0
		}
	}
	t.StopTimer()
}

// PullStep is the loop's part of Await: tasks bare coroutines (iter.Pull,
// no Task, no Future), each resumed by a CallSoon callback it schedules
// just before it yields, n round trips in all. PullStep minus PullAwait
// is the cost of one dispatch by the loop.
func PullStep(t Timer, l *loopbench.Loop, tasks, n int) error {
	return pullSteps(t, l, tasks, n, false)
}

// PullWake is the floor under Await on the loop: the same bare coroutines,
// each scheduling a callback that schedules the step resuming it, so that
// a round trip takes the two dispatches asyncio's await takes (the
// future's completion, then the task's wakeup), with no Task or Future.
// Await minus PullWake is what the task layer adds (the future, its done
// callback, the bookkeeping).
func PullWake(t Timer, l *loopbench.Loop, tasks, n int) error {
	return pullSteps(t, l, tasks, n, true)
}

// pullSteps runs PullStep, or PullWake when wake is set.
func pullSteps(t Timer, l *loopbench.Loop, tasks, n int, wake bool) error {
	left := n
	stops := make([]func(), 0, tasks)
	defer func() {
		for _, stop := range stops {
			stop()
		}
	}()
	for range tasks {
		var step, first func()
		next, stop := iter.Pull(func(yield func(struct{}) bool) {
			for left > 0 {
				left--
				l.CallSoon(first)
				if !yield(struct{}{}) {
					return
				}
			}
			if left == 0 { // the first to find the work done
				left = -1
				l.Stop()
			}
		})
		stops = append(stops, stop)
		step = func() { next() }
		first = step
		if wake {
			first = func() { l.CallSoon(step) }
		}
		l.CallSoon(step)
	}
	t.ResetTimer()
	err := l.RunForever()
	t.StopTimer()
	return err
}

// GoroutineSpawn is the goroutine baseline of Spawn: start a goroutine
// that returns at once and wait for it, batch at a time.
func GoroutineSpawn(t Timer, n, batch int) {
	var wg sync.WaitGroup
	t.ResetTimer()
	for i := 0; i < n; i += batch {
		for range min(batch, n-i) {
			wg.Add(1)
			go wg.Done()
		}
		wg.Wait()
	}
	t.StopTimer()
}
