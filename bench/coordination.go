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
				err := tk.Sleep(0)
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

// coordinationCases: the Queue ping-pong and the Lock, uncontended and
// contended, on each ready queue (the part a wake-up goes through), and
// their Go counterparts between goroutines (impl=chan, impl=mutex).
func coordinationCases(o Options, add func(Case)) {
	ops := []struct {
		params string
		run    func(Timer, *loopbench.Loop, int) error
	}{
		{"op=queue-pingpong", QueuePingPong},
		{"op=lock/tasks=1", LockUncontended},
		{fmt.Sprintf("op=lock-yield/tasks=%d", lockTasks), LockYield},
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
}
