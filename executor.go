package loopbench

import (
	"errors"
	"fmt"
	"runtime"
	"sync"
	"time"
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
	closed  bool   // Close: queued jobs dropped, workers leave after their job
	shut    bool   // ShutdownDefaultExecutor: no new jobs, queued ones still run
	drained func() // called once, by the last worker to leave, after shut
}

// executorWorkers is the pool size: asyncio's default executor size,
// min(32, CPUs+4).
var executorWorkers = min(32, runtime.NumCPU()+4)

// ErrExecutorShutdown fails RunInExecutor (and GetAddrInfo, which uses it)
// after ShutdownDefaultExecutor (asyncio raises RuntimeError).
var ErrExecutorShutdown = errors.New("loopbench: the loop's executor is shut down")

// RunInExecutor runs fn on the loop's goroutine pool and returns a future
// completed, through CallSoonThreadsafe, with what fn returns; a panic in
// fn becomes the future's error. Cancelling the future does not stop fn;
// its result is dropped. Close does not wait for running jobs (asyncio's
// close does not either): it drops the queued ones, and the result of a
// job still running is dropped when it ends. To wait for them, call
// ShutdownDefaultExecutor before Close. After ShutdownDefaultExecutor the
// future fails with ErrExecutorShutdown.
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
	switch l.c.exec().submit(job) {
	case errClosedExec:
		panic(closedError("RunInExecutor"))
	case ErrExecutorShutdown:
		f.SetException(ErrExecutorShutdown)
	}
	return f
}

// ShutdownDefaultExecutor stops the executor taking jobs and returns a
// future completed once the jobs queued and running have all ended:
// asyncio's shutdown_default_executor, which asyncio.run (and Run) awaits
// before closing the loop. If they have not ended within timeout (Never:
// no limit) the future fails with an error wrapping ErrTimeout, and the
// jobs left go on without being waited for. Later RunInExecutor calls
// fail with ErrExecutorShutdown.
func (l *Loop) ShutdownDefaultExecutor(timeout time.Duration) *Future {
	f := l.CreateFuture()
	done := func() {
		if !f.Done() {
			f.SetResult(nil)
		}
	}
	h := l.CallLater(timeout, func() {
		if !f.Done() {
			f.SetException(fmt.Errorf("ShutdownDefaultExecutor: jobs still running after %v: %w", timeout, ErrTimeout))
		}
	})
	f.AddDoneCallback(func(*Future) { h.Cancel() })
	if !l.c.exec().shutdown(func() { l.c.tryCallSoonThreadsafe(done) }) {
		done()
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

var errClosedExec = errors.New("executor closed")

func (e *executor) submit(job func()) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	switch {
	case e.closed:
		return errClosedExec
	case e.shut:
		return ErrExecutorShutdown
	}
	if e.cond == nil {
		e.cond = sync.NewCond(&e.mu)
	}
	e.jobs = append(e.jobs, job)
	if e.idle > 0 {
		e.cond.Signal()
	} else if e.workers < executorWorkers {
		e.workers++
		go e.work()
	}
	return nil
}

func (e *executor) work() {
	e.mu.Lock()
	for {
		for len(e.jobs) == 0 && !e.closed && !e.shut {
			e.idle++
			e.cond.Wait()
			e.idle--
		}
		if e.closed || len(e.jobs) == 0 {
			e.leave()
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

// leave ends a worker, under mu, and unlocks it; the last worker to leave
// a shut executor reports that it is drained.
func (e *executor) leave() {
	e.workers--
	var drained func()
	if e.workers == 0 && e.drained != nil {
		drained, e.drained = e.drained, nil
	}
	e.mu.Unlock()
	if drained != nil {
		drained()
	}
}

// shutdown stops the executor taking jobs; once the queued and running
// ones have ended, drained is called from the last worker's goroutine. It
// reports false, without keeping drained, when no worker is left.
func (e *executor) shutdown(drained func()) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.shut = true
	if e.cond != nil {
		e.cond.Broadcast()
	}
	if e.workers == 0 || e.closed {
		return false
	}
	e.drained = drained
	return true
}

// closePart drops the queued jobs and lets the workers leave, without waiting
// for those running a job: asyncio's close does not wait either.
func (e *executor) closePart() {
	e.mu.Lock()
	e.closed = true
	e.jobs = nil
	e.drained = nil
	if e.cond != nil {
		e.cond.Broadcast()
	}
	e.mu.Unlock()
}

// exec is the loop's part that runs its executor jobs.
func (c *core) exec() *executor { return c.parts[partExecutor].(*executor) }
