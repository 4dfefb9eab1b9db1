package loopbench

import (
	"fmt"
	"runtime"
	"sync"
)

// executor is the loop's bounded goroutine pool for RunInExecutor: at most
// max workers, started on demand, taking jobs from an unbounded queue so
// that RunInExecutor never blocks the loop.
type executor struct {
	mu      sync.Mutex
	cond    *sync.Cond
	jobs    []func()
	workers int
	idle    int
	closed  bool
	wg      sync.WaitGroup
}

// executorWorkers is the pool size: asyncio's default executor size,
// min(32, CPUs+4).
var executorWorkers = min(32, runtime.NumCPU()+4)

// RunInExecutor runs fn on the loop's goroutine pool and returns a future
// completed, through CallSoonThreadsafe, with what fn returns; a panic in
// fn becomes the future's error. Cancelling the future does not stop fn;
// its result is dropped. Close waits for running jobs and drops queued ones,
// so a job must not wait for the loop.
func (l *Loop) RunInExecutor(fn func() (any, error)) *Future {
	f := l.CreateFuture()
	job := func() {
		v, err := runJob(fn)
		l.c.tryCallSoonThreadsafe(func() {
			if f.Done() {
				return
			}
			if err != nil {
				f.SetException(err)
			} else {
				f.SetResult(v)
			}
		})
	}
	if !l.c.exec.submit(job) {
		panic(closedError("RunInExecutor"))
	}
	return f
}

func runJob(fn func() (any, error)) (v any, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("loopbench: executor job panicked: %v", r)
		}
	}()
	return fn()
}

func (e *executor) submit(job func()) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.closed {
		return false
	}
	if e.cond == nil {
		e.cond = sync.NewCond(&e.mu)
	}
	e.jobs = append(e.jobs, job)
	if e.idle > 0 {
		e.cond.Signal()
	} else if e.workers < executorWorkers {
		e.workers++
		e.wg.Add(1)
		go e.work()
	}
	return true
}

func (e *executor) work() {
	defer e.wg.Done()
	e.mu.Lock()
	for {
		for len(e.jobs) == 0 && !e.closed {
			e.idle++
			e.cond.Wait()
			e.idle--
		}
		if e.closed {
			e.workers--
			e.mu.Unlock()
			return
		}
		job := e.jobs[0]
		e.jobs[0] = nil
		e.jobs = e.jobs[1:]
		e.mu.Unlock()
		job()
		e.mu.Lock()
	}
}

// shutdown drops queued jobs and waits for the running ones.
func (e *executor) shutdown() {
	e.mu.Lock()
	e.closed = true
	e.jobs = nil
	if e.cond != nil {
		e.cond.Broadcast()
	}
	e.mu.Unlock()
	e.wg.Wait()
}
