package loopbench

import "iter"

// maxIdleCoroutines bounds a loop's pool of idle coroutines. Each holds a
// parked goroutine and its stack (a few KiB unless a task grew it and the
// GC has not shrunk it yet); in exchange CreateTask starts no goroutine and
// a task's end destroys none. The pool lives as long as its loop.
const maxIdleCoroutines = 128

// coroutine is a runtime coroutine (iter.Pull) that runs tasks' functions
// one after another. When a task's function returns, the coroutine goes
// back to its loop's pool and waits, suspended, for the next CreateTask.
type coroutine struct {
	next func() (struct{}, bool) // resume it (iter.Pull)
	stop func()
	job  job // the task it runs, or will run when resumed
}

// A job is what a coroutine runs: a task's function.
type job interface {
	// runOn runs the function on the coroutine, whose yield suspends
	// it, and reports whether the coroutine went back to its pool to run
	// another job.
	runOn(yield func(struct{}) bool) bool
}

// coroutinePool is the loop's part that holds its idle coroutines.
type coroutinePool struct{ idle []*coroutine }

// coroutines is the loop's pool of idle coroutines.
func (c *core) coroutines() *coroutinePool {
	return c.parts[partCoroutines].(*coroutinePool)
}

// takeCoroutine returns an idle coroutine of the pool, or a new one, to run j.
func (c *core) takeCoroutine(j job) *coroutine {
	var co *coroutine
	p := c.coroutines()
	if n := len(p.idle); n > 0 {
		co = p.idle[n-1]
		p.idle[n-1] = nil
		p.idle = p.idle[:n-1]
	} else {
		co = &coroutine{}
		co.next, co.stop = iter.Pull(co.run)
	}
	co.job = j
	return co
}

// parkCoroutine returns co, idle, to the pool; it reports false, and the caller
// lets co end, when the pool is full or the loop closed.
func (c *core) parkCoroutine(co *coroutine) bool {
	co.job = nil
	p := c.coroutines()
	if len(p.idle) == maxIdleCoroutines || c.closed.Load() {
		return false
	}
	p.idle = append(p.idle, co)
	return true
}

// run is the coroutine's body: each task's function in turn, parked in the
// pool between tasks. It ends when the pool is full, when Close stops it,
// and with a runtime.Goexit in a function (see Task.runFunction).
func (co *coroutine) run(yield func(struct{}) bool) {
	for {
		if !co.job.runOn(yield) {
			return
		}
		if !yield(struct{}{}) {
			return // stopped while idle
		}
	}
}

// closePart ends the pool's coroutines, at Close.
func (p *coroutinePool) closePart() {
	for _, co := range p.idle {
		co.stop()
	}
	p.idle = nil
}
