package bench

import (
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/loopbench/loopbench"
)

// lockTasks is how many tasks (goroutines for the baseline) contend for
// the lock in op=lock-yield.
const lockTasks = 4

// queueWorkers are the worker counts of op=queue-workers: a few, and
// enough that a waiter list scanned per wake-up would show.
var queueWorkers = []int{10, 1000}

// QueuePingPong is a token passed back and forth between two tasks
// through two queues: one task Puts to ping and Gets from pong, the other
// the reverse; n round trips (two Puts and two Gets each, every Get
// waiting for the other task's Put). The natural use of Queue: the
// public API, no reuse trick. Its shape matches ChanPingPong.
func QueuePingPong(t Timer, l *loopbench.Loop, n int) error {
	ping, pong := loopbench.NewQueue[int](0), loopbench.NewQueue[int](0)
	a := l.CreateTask(func(tk *loopbench.Task) (any, error) {
		for i := range n {
			if err := ping.Put(tk, i); err != nil {
				return nil, err
			}
			if _, err := pong.Get(tk); err != nil {
				return nil, err
			}
		}
		return nil, nil
	})
	b := l.CreateTask(func(tk *loopbench.Task) (any, error) {
		for range n {
			v, err := ping.Get(tk)
			if err != nil {
				return nil, err
			}
			if err := pong.Put(tk, v); err != nil {
				return nil, err
			}
		}
		return nil, nil
	})
	t.ResetTimer()
	_, err := l.RunUntilComplete(loopbench.Gather(l, a, b))
	t.StopTimer()
	return err
}

// ChanPingPong is QueuePingPong's shape between two goroutines: a token
// sent back and forth through two unbuffered channels, n round trips.
func ChanPingPong(t Timer, n int) {
	ping, pong := make(chan int), make(chan int)
	go func() {
		for v := range ping {
			pong <- v
		}
	}()
	t.ResetTimer()
	for i := range n {
		ping <- i
		<-pong
	}
	t.StopTimer()
	close(ping)
}

// LockUncontended is Acquire and Release of a Lock nobody else wants, n
// times in one task: the cost of the primitive when it never waits.
func LockUncontended(t Timer, l *loopbench.Loop, n int) error {
	lock := loopbench.NewLock()
	task := l.CreateTask(func(tk *loopbench.Task) (any, error) {
		for range n {
			if err := lock.Acquire(tk); err != nil {
				return nil, err
			}
			if err := lock.Release(); err != nil {
				return nil, err
			}
		}
		return nil, nil
	})
	t.ResetTimer()
	_, err := l.RunUntilComplete(task)
	t.StopTimer()
	return err
}

// MutexUncontended is LockUncontended's shape with sync.Mutex in one
// goroutine.
func MutexUncontended(t Timer, n int) {
	var mu sync.Mutex
	t.ResetTimer()
	for range n {
		mu.Lock()
		//lint:ignore SA2001 the empty critical section is what is measured
		mu.Unlock()
	}
	t.StopTimer()
}

// LockYield is a contended Lock: lockTasks tasks each Acquire, yield one
// iteration while they hold it (Sleep(0), as a holder that awaits I/O
// would), and Release, n acquisitions in all; every Acquire but the
// first waits and is handed the lock by a Release.
func LockYield(t Timer, l *loopbench.Loop, n int) error {
	lock := loopbench.NewLock()
	left := n
	return runTasks(t, l, lockTasks, func() func(*loopbench.Task) (any, error) {
		return func(tk *loopbench.Task) (any, error) {
			for left > 0 {
				left--
				if err := lock.Acquire(tk); err != nil {
					return nil, err
				}
				err := loopbench.Sleep(tk, 0)
				if rerr := lock.Release(); rerr != nil {
					return nil, rerr
				}
				if err != nil {
					return nil, err
				}
			}
			return nil, nil
		}
	})
}

// MutexYield is LockYield's shape with sync.Mutex: lockTasks goroutines
// each Lock, yield the processor (runtime.Gosched) while they hold it,
// and Unlock, n acquisitions in all.
func MutexYield(t Timer, n int) {
	var mu sync.Mutex
	var left atomic.Int64
	left.Store(int64(n))
	var wg sync.WaitGroup
	t.ResetTimer()
	for range lockTasks {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for left.Add(-1) >= 0 {
				mu.Lock()
				runtime.Gosched()
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	t.StopTimer()
}

// QueueWorkers is a work queue: workers tasks wait in Get on one Queue,
// and a producer task Puts n items one at a time, yielding one iteration
// after each as a producer fed by I/O would, so each Put wakes a worker
// that takes its item and waits again: the queue's waiter list holds
// about workers waiters the whole run, and what it costs to wake one and
// to leave the list is what grows, or not, with workers. The timer starts
// once every worker waits and stops before they are sent home. Its shape
// matches ChanWorkers.
func QueueWorkers(t Timer, l *loopbench.Loop, workers, n int) error {
	q := loopbench.NewQueue[int](0)
	all := make([]loopbench.Awaitable, 0, workers+1)
	for range workers {
		all = append(all, l.CreateTask(func(tk *loopbench.Task) (any, error) {
			for {
				v, err := q.Get(tk)
				if err != nil || v < 0 {
					return nil, err
				}
			}
		}))
	}
	all = append(all, l.CreateTask(func(tk *loopbench.Task) (any, error) {
		if err := loopbench.Sleep(tk, 0); err != nil { // every worker now waits in Get
			return nil, err
		}
		t.ResetTimer()
		for i := range n {
			if err := q.Put(tk, i); err != nil {
				return nil, err
			}
			if err := loopbench.Sleep(tk, 0); err != nil {
				return nil, err
			}
		}
		t.StopTimer()
		for range workers {
			if err := q.PutNowait(-1); err != nil {
				return nil, err
			}
		}
		return nil, nil
	}))
	_, err := l.RunUntilComplete(loopbench.Gather(l, all...))
	return err
}

// ChanWorkers is QueueWorkers' shape between goroutines: workers
// goroutines receive from one unbuffered channel, and the producer sends
// n items one at a time, each handed to a waiting receiver.
func ChanWorkers(t Timer, workers, n int) {
	ch := make(chan int)
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range ch {
			}
		}()
	}
	t.ResetTimer()
	for i := range n {
		ch <- i
	}
	t.StopTimer()
	close(ch)
	wg.Wait()
}

// coordinationCases: the Queue ping-pong and the Lock, uncontended and
// contended, on each ready queue (the part a wake-up goes through), and
// their Go counterparts between goroutines (impl=chan, impl=mutex).
func coordinationCases(o Options, add func(Case)) {
	type coordOp struct {
		params string
		run    func(Timer, *loopbench.Loop, int) error
	}
	ops := []coordOp{
		{"op=queue-pingpong", QueuePingPong},
		{"op=lock/tasks=1", LockUncontended},
		{fmt.Sprintf("op=lock-yield/tasks=%d", lockTasks), LockYield},
	}
	for _, w := range queueWorkers {
		ops = append(ops, coordOp{fmt.Sprintf("op=queue-workers/tasks=%d", w), func(t Timer, l *loopbench.Loop, n int) error { return QueueWorkers(t, l, w, n) }})
	}
	for _, cfg := range variants(o, func(c loopbench.Config) loopbench.Config { return loopbench.Config{Ready: c.Ready} }) {
		for _, op := range ops {
			add(Case{"Coordination", cfg.String(), op.params, onLoop(cfg, func(l *loopbench.Loop) (func(Timer, int) error, func(), error) {
				return func(t Timer, n int) error { return op.run(t, l, n) }, nil, nil
			})})
		}
	}
	add(Case{"Coordination", "impl=chan", "op=queue-pingpong", plain(func(t Timer, n int) error { ChanPingPong(t, n); return nil })})
	add(Case{"Coordination", "impl=mutex", "op=lock/tasks=1", plain(func(t Timer, n int) error { MutexUncontended(t, n); return nil })})
	add(Case{"Coordination", "impl=mutex", fmt.Sprintf("op=lock-yield/tasks=%d", lockTasks), plain(func(t Timer, n int) error { MutexYield(t, n); return nil })})
	for _, w := range queueWorkers {
		add(Case{"Coordination", "impl=chan", fmt.Sprintf("op=queue-workers/tasks=%d", w), plain(func(t Timer, n int) error { ChanWorkers(t, w, n); return nil })})
	}
}
