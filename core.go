package loopbench

import (
	"errors"
	"fmt"
	"log"
	"math/bits"
	"reflect"
	"runtime"
	"runtime/debug"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/loopbench/loopbench/impl/heap2ary"
	"github.com/loopbench/loopbench/impl/heap4ary"
	"github.com/loopbench/loopbench/impl/wheel"
	"github.com/loopbench/loopbench/internal/sock"
	"github.com/loopbench/loopbench/selectors"
)

// clockResolution is asyncio's _clock_resolution: a timer is due when its
// deadline is before now + clockResolution.
const clockResolution = time.Nanosecond

// maxSelectTimeout caps the select timeout, as asyncio's MAXIMUM_SELECT_TIMEOUT.
const maxSelectTimeout = 24 * time.Hour

// timerQueue is the timer-queue contract (impl/heap2ary, impl/heap4ary,
// impl/wheel).
// Its calls cost tens to hundreds of ns, so an interface is cheap here.
type timerQueue interface {
	Push(when int64, id uint32)
	Peek() (when int64, id uint32, ok bool)
	Pop() (when int64, id uint32, ok bool)
	Remove(id uint32) bool
	Retain(keep func(id uint32) bool) int
	Len() int
}

// readyQueue is what a CallSoon handle needs of the ready queue
// (impl/ringbuffer, impl/deque): its callbacks are named by position.
type readyQueue interface {
	At(pos uint64) (func(), bool)
	Clear(pos uint64) bool
}

// fdEntry is what the loop watches on one fd: reader and writer slot ids
// plus one (0 = none).
type fdEntry struct{ reader, writer uint32 }

func (e fdEntry) events() selectors.Events {
	var ev selectors.Events
	if e.reader != 0 {
		ev |= selectors.Read
	}
	if e.writer != 0 {
		ev |= selectors.Write
	}
	return ev
}

// core is the state every loop type shares: the handle table, timers,
// selector, fd table and thread-safe queue. The generated loop types embed
// it next to their concrete ready queue.
type core struct {
	// rq is the concrete ready queue, for the lookups a CallSoon handle
	// makes by position (Cancel, Cancelled). The hot paths use the
	// concrete queue of the generated loop type.
	rq readyQueue

	// The slots of the timer, I/O and thread-safe callbacks an iteration
	// queues, in order; runSlots consumes them in the same iteration (see
	// runSlots for why they need not enter the ready queue).
	slotq    []uint32
	slotHead int

	slots []slot
	free  []uint32

	timers     timerQueue
	lazy       bool
	ncancelled int                  // lazily cancelled timers still in the heap
	keep       func(id uint32) bool // keepTimer, bound once
	dropBits   []uint64             // a compaction's cancelled timers, by slot id

	sel     selectors.Selector
	events  []selectors.Event
	fds     []fdEntry
	watched int // fds registered with sel for callbacks (not the wakeup fd)

	ts      threadsafe
	signals signalHandlers
	sigchld sigchld

	children     map[*SubprocessTransport]struct{} // running or not yet reported children
	forceSigchld bool                              // tests: watch exits with SIGCHLD, not pidfds

	epoch time.Time
	clock func() time.Duration // tests inject a clock; nil = monotonic time since epoch

	rbuf       []byte                          // the transports' shared read buffer
	transports map[*Transport]struct{}         // open transports, closed by Close
	servers    map[*Server]struct{}            // listening servers, closed by Close
	datagrams  map[*DatagramTransport]struct{} // open datagram endpoints, closed by Close
	tasks      *Task                           // unfinished tasks, for Close
	idle       []*coroutine                    // coroutines waiting for a task
	exec       executor

	stopping   bool
	stopOnDone func(*Future) // RunUntilComplete's done callback, bound once
	running    atomic.Bool
	closed     atomic.Bool

	// The slot callback last run, for the exception handler: its handle
	// (gen<<32 | id), set by take.
	cur uint64

	cfg      Config
	slow     time.Duration
	logger   *log.Logger
	excMu    sync.Mutex
	excHandl func(ExceptionContext)
}

func (c *core) init(cfg Config) error {
	cfg = cfg.normalized()
	c.cfg = cfg
	c.lazy = cfg.TimerCancel == "lazy"
	c.slow = cfg.SlowCallbackDuration
	c.epoch = time.Now()
	c.keep = c.keepTimer
	c.stopOnDone = func(*Future) { c.stopping = true }
	c.transports = map[*Transport]struct{}{}
	c.servers = map[*Server]struct{}{}
	c.datagrams = map[*DatagramTransport]struct{}{}
	c.children = map[*SubprocessTransport]struct{}{}
	c.logger = log.Default()
	switch cfg.Timers {
	case "heap2ary":
		c.timers = new(heap2ary.Heap)
	case "wheel":
		c.timers = new(wheel.Wheel)
	default:
		c.timers = new(heap4ary.Heap)
	}
	sel, err := selectors.New(cfg.Selector)
	if err != nil {
		return err
	}
	c.sel = sel
	if err := c.ts.open(sel); err != nil {
		sel.Close()
		return err
	}
	return nil
}

// time is the loop clock.
func (c *core) time() time.Duration {
	if c.clock != nil {
		return c.clock()
	}
	return time.Since(c.epoch)
}

// --- timers ---------------------------------------------------------------

func (c *core) callAt(when time.Duration, fn func()) TimerHandle {
	if c.closed.Load() {
		panic(closedError("CallAt"))
	}
	if fn == nil {
		panic("loopbench: CallAt/CallLater with a nil func")
	}
	id := c.alloc(fn, flagHeap)
	c.timers.Push(int64(when), id)
	return TimerHandle{Handle: c.handle(id), when: when}
}

// keepTimer is the Retain predicate of a compaction: it keeps the timers
// the compaction did not mark.
func (c *core) keepTimer(id uint32) bool {
	return c.dropBits[id/64]&(1<<(id%64)) == 0
}

// compact drops every lazily cancelled timer and rebuilds the timer queue
// (asyncio's rule, step 1). One pass over the slot table, in order, marks
// the cancelled timers in a bitmap that the queue's rebuild asks, so no
// timer costs a random read of the table; a second pass frees their slots
// in id order, so that the slots scheduling takes next are neighbours too.
func (c *core) compact() {
	words := (len(c.slots) + 63) / 64
	if cap(c.dropBits) < words {
		c.dropBits = make([]uint64, words)
	}
	marks := c.dropBits[:words]
	clear(marks)
	const lazyDead = flagHeap | flagCancelled
	for id := range c.slots {
		if c.slots[id].flags&lazyDead == lazyDead {
			marks[id/64] |= 1 << (id % 64)
		}
	}
	c.dropBits = marks
	c.timers.Retain(c.keep)
	for w := len(marks) - 1; w >= 0; w-- {
		for b := marks[w]; b != 0; {
			top := 63 - bits.LeadingZeros64(b)
			b &^= 1 << top
			id := uint32(w*64 + top)
			c.release(id)
		}
	}
	c.ncancelled = 0
}

// sweepCancelled is step 1 of the iteration (lazy mode only).
func (c *core) sweepCancelled() {
	if c.ncancelled == 0 {
		return
	}
	if n := c.timers.Len(); n > 100 && 2*c.ncancelled > n {
		c.compact()
		return
	}
	for {
		_, id, ok := c.timers.Peek()
		if !ok || c.slots[id].flags&flagCancelled == 0 {
			return
		}
		c.timers.Pop()
		c.ncancelled--
		c.release(id)
	}
}

// poll is steps 2 and 3 of the iteration: it waits for I/O events up to
// selectTimeout. When that timeout is 0 and no fd is watched, no selector
// could report anything, so it makes no system call: the wakeup fd is
// left to the next blocking poll, and thread-safe callbacks are taken by
// their flag.
func (c *core) poll(ready int) ([]selectors.Event, error) {
	d := c.selectTimeout(ready)
	if d == 0 && c.watched == 0 {
		return c.events[:0], nil
	}
	evs, err := c.sel.Select(d, c.events[:0])
	c.events = evs
	if err != nil {
		return nil, fmt.Errorf("loopbench: %w", err)
	}
	return evs, nil
}

// selectTimeout is step 2 of the iteration.
func (c *core) selectTimeout(ready int) time.Duration {
	if ready > 0 || c.stopping || c.ts.pending() {
		return 0
	}
	when, _, ok := c.timers.Peek()
	if !ok {
		return -1
	}
	return min(max(time.Duration(when)-c.time(), 0), maxSelectTimeout)
}

// popDue pops the next timer due before end (step 4), skipping and freeing
// lazily cancelled ones. The caller queues the id it returns.
func (c *core) popDue(end time.Duration) (uint32, bool) {
	for {
		when, id, ok := c.timers.Peek()
		if !ok || when >= int64(end) {
			return 0, false
		}
		c.timers.Pop()
		s := &c.slots[id]
		s.flags &^= flagHeap
		if s.flags&flagCancelled == 0 {
			return id, true
		}
		c.ncancelled--
		c.release(id)
	}
}

// --- I/O --------------------------------------------------------------------

func (c *core) entry(fd int) *fdEntry {
	for fd >= len(c.fds) {
		c.fds = append(c.fds, fdEntry{})
	}
	return &c.fds[fd]
}

// addIO installs fn as the reader (write false) or writer of fd, replacing
// and cancelling the previous one; reader and writer share one selector
// registration.
func (c *core) addIO(fd int, fn func(), write bool) error {
	op := map[bool]string{false: "AddReader", true: "AddWriter"}[write]
	if c.closed.Load() {
		return closedError(op)
	}
	if fd < 0 || fd == c.ts.fd() {
		return fmt.Errorf("loopbench: %s: invalid fd %d", op, fd)
	}
	e := c.entry(fd)
	old, next := *e, *e
	id := c.alloc(fn, flagIO)
	if write {
		next.writer = id + 1
	} else {
		next.reader = id + 1
	}
	if err := c.watch(fd, old.events(), next.events()); err != nil {
		c.release(id)
		return fmt.Errorf("loopbench: %s: %w", op, err)
	}
	*e = next
	if prev := old.reader; !write && prev != 0 {
		c.cancelSlot(prev - 1)
	}
	if prev := old.writer; write && prev != 0 {
		c.cancelSlot(prev - 1)
	}
	return nil
}

// removeIO removes the reader or writer of fd; true if there was one.
func (c *core) removeIO(fd int, write bool) bool {
	if c.closed.Load() || fd < 0 || fd >= len(c.fds) {
		return false
	}
	e := &c.fds[fd]
	old := *e
	p := &e.reader
	if write {
		p = &e.writer
	}
	if *p == 0 {
		return false
	}
	c.cancelSlot(*p - 1)
	*p = 0
	c.watch(fd, old.events(), e.events()) // a closed fd is already gone from the kernel
	return true
}

// watch moves fd's selector registration from events old to new.
func (c *core) watch(fd int, old, new selectors.Events) error {
	switch {
	case old == new:
		return nil
	case old == 0:
		err := c.sel.Register(fd, new)
		if err == nil {
			c.watched++
		}
		return err
	case new == 0:
		c.watched--
		return c.sel.Unregister(fd)
	}
	return c.sel.Modify(fd, new)
}

// ioReady returns the slots to queue for a selector event (step 3), or
// ids >= tsBit for none. A cancelled handle is removed instead of queued.
func (c *core) ioReady(ev selectors.Event) (r, w uint32) {
	r, w = tsBit, tsBit
	if ev.Fd == c.ts.fd() {
		c.ts.drainWakeup()
		return
	}
	if ev.Fd >= len(c.fds) {
		return
	}
	e := c.fds[ev.Fd]
	if ev.Events&selectors.Read != 0 && e.reader != 0 {
		r = c.readyIO(ev.Fd, e.reader-1, false)
	}
	if ev.Events&selectors.Write != 0 && e.writer != 0 {
		w = c.readyIO(ev.Fd, e.writer-1, true)
	}
	return
}

func (c *core) readyIO(fd int, id uint32, write bool) uint32 {
	s := &c.slots[id]
	if s.flags&flagCancelled != 0 {
		c.removeIO(fd, write)
		return tsBit
	}
	if s.flags&flagQueued != 0 {
		return tsBit
	}
	s.flags |= flagQueued
	return id
}

// --- running a callback -----------------------------------------------------

// queueSlot queues slot id to run in this iteration, after the CallSoon
// callbacks queued before it.
func (c *core) queueSlot(id uint32) {
	c.slots[id].flags |= flagQueued
	c.slotq = append(c.slotq, id)
}

// runSlots runs the callbacks of the slots queued in this iteration. They
// come after the CallSoon callbacks the iteration started with and before
// any its callbacks schedule, exactly where asyncio's _run_once appends
// them to _ready: the loop queues them only between select and dispatch,
// so in _ready they would always form the tail of the callbacks the
// iteration runs. So they wait in slotq instead, and the ready queue holds
// nothing but CallSoon callbacks.
func (c *core) runSlots() {
	for c.slotHead < len(c.slotq) {
		c.runSomeSlots()
	}
	clear(c.slotq)
	c.slotq, c.slotHead = c.slotq[:0], 0
}

// runSomeSlots runs queued slots until one panics (reported) or none is
// left.
func (c *core) runSomeSlots() {
	defer func() {
		if r := recover(); r != nil {
			c.callbackPanicked(r, c.slotHandle())
		}
	}()
	for c.slotHead < len(c.slotq) {
		id := c.slotq[c.slotHead]
		c.slotHead++
		switch fn := c.take(id); {
		case fn == nil:
		case c.cfg.Debug:
			t0 := c.time()
			fn()
			c.logSlow(t0, fn, c.slotHandle())
		default:
			fn()
		}
	}
}

// take returns the callback of slot id, just taken from slotq:
// nil for a cancelled one, the reader/writer of an fd, or the callback of
// a due timer or of a thread-safe record, whose slot it frees.
func (c *core) take(id uint32) func() {
	s := &c.slots[id]
	s.flags &^= flagQueued
	c.cur = uint64(s.gen)<<32 | uint64(id)
	switch {
	case s.flags == flagLive:
		fn := s.fn
		c.release(id)
		return fn
	case s.flags&flagCancelled != 0:
		if s.flags&flagHeap == 0 {
			c.release(id)
		}
		return nil
	case s.flags&flagIO != 0:
		return s.fn
	case s.flags&flagTS == 0:
		panic(fmt.Sprintf("loopbench: internal error: slot %d queued with flags %#x", id, s.flags))
	}
	rec := c.ts.slotRec[id]
	c.release(id)
	fn, gen := c.ts.take(rec)
	c.cur = uint64(gen)<<32 | uint64(rec|tsBit)
	return fn
}

// runTimed runs fn, the CallSoon callback at ready-queue position pos, and
// logs it when it took at least SlowCallbackDuration (debug mode).
func (c *core) runTimed(fn func(), pos uint64) {
	t0 := c.time()
	fn()
	c.logSlow(t0, fn, c.soonHandle(pos))
}

// logSlow logs fn, started at t0, if it took at least SlowCallbackDuration.
func (c *core) logSlow(t0 time.Duration, fn func(), h Handle) {
	if d := c.time() - t0; d >= c.slow {
		c.logger.Printf("loopbench: executing %v (%s) took %.3f seconds", h, funcName(fn), d.Seconds())
	}
}

func funcName(fn func()) string {
	if f := runtime.FuncForPC(reflect.ValueOf(fn).Pointer()); f != nil {
		return f.Name()
	}
	return "?"
}

// ExceptionContext describes an error the loop could not return to anyone:
// a panic in a callback, or an error in a future nobody retrieved.
type ExceptionContext struct {
	Message string
	Err     error  // the error; a recovered panic value is wrapped as "panic: ..."
	Panic   any    // the recovered value, when a callback panicked
	Handle  Handle // the callback that panicked
	Stack   []byte // the panicking goroutine's stack
}

func (c *core) setExceptionHandler(h func(ExceptionContext)) {
	c.excMu.Lock()
	c.excHandl = h
	c.excMu.Unlock()
}

// slotHandle returns the handle of the slot callback running or last run.
func (c *core) slotHandle() Handle {
	return Handle{c: c, id: uint32(c.cur), gen: uint32(c.cur >> 32)}
}

// soonHandle returns the handle of the CallSoon callback at ready-queue
// position pos.
func (c *core) soonHandle(pos uint64) Handle {
	id, gen := soonID(pos)
	return Handle{c: c, id: id, gen: gen}
}

// callbackPanicked reports the panic of the callback of handle h, except
// the one a task's Goexit turns into (the task has failed with ErrGoexit).
func (c *core) callbackPanicked(r any, h Handle) {
	if r == goexitSentinel {
		return
	}
	err, ok := r.(error)
	if !ok {
		err = fmt.Errorf("%v", r)
	}
	c.report(ExceptionContext{
		Message: "panic in callback " + h.String(),
		Err:     fmt.Errorf("panic: %w", err),
		Panic:   r,
		Handle:  h,
		Stack:   debug.Stack(),
	})
}

// report calls the exception handler, or logs when there is none; a panic
// in the handler itself is logged, never propagated.
func (c *core) report(ctx ExceptionContext) {
	c.excMu.Lock()
	h := c.excHandl
	c.excMu.Unlock()
	if h != nil {
		defer func() {
			if r := recover(); r != nil {
				c.logger.Printf("loopbench: panic in exception handler: %v (handling: %s: %v)", r, ctx.Message, ctx.Err)
			}
		}()
		h(ctx)
		return
	}
	c.logger.Printf("loopbench: %s: %v\n%s", ctx.Message, ctx.Err, ctx.Stack)
}

// --- run state --------------------------------------------------------------

// runningLoops counts the loops running in this process. A run can be
// nested in another loop's callback only while another loop runs, so
// while a loop runs alone starting it checks nothing more: the guard
// costs one atomic add on each side of a run.
var runningLoops atomic.Int32

func (c *core) startRun() error {
	switch {
	case c.closed.Load():
		return closedError("RunForever")
	case !c.running.CompareAndSwap(false, true):
		return ErrRunning
	}
	if runningLoops.Add(1) > 1 && insideLoop() {
		runningLoops.Add(-1)
		c.running.Store(false)
		return fmt.Errorf("another loop is running on this goroutine: %w", ErrRunning)
	}
	return nil
}

func (c *core) endRun() {
	c.stopping = false
	runningLoops.Add(-1)
	c.running.Store(false)
}

// pkgPath prefixes the names of this package's functions.
var pkgPath = reflect.TypeFor[core]().PkgPath()

// insideLoop reports whether the caller runs inside a loop's iteration:
// its call stack holds a loop type's runOnce (a callback calling in), or a
// task's coroutine body (a task's function, which runs only while its
// loop steps it). Walking the stack costs about a microsecond, paid only
// when several loops run at once.
func insideLoop() bool {
	var pcs [64]uintptr
	for skip := 2; ; {
		n := runtime.Callers(skip, pcs[:])
		frames := runtime.CallersFrames(pcs[:n])
		for {
			f, more := frames.Next()
			if name, ok := strings.CutPrefix(f.Function, pkgPath+".(*"); ok &&
				(strings.HasSuffix(name, "Loop).runOnce") || name == "coroutine).run") {
				return true
			}
			if !more {
				break
			}
		}
		if n < len(pcs) {
			return false
		}
		skip += n
	}
}

// closeSockets closes what servers and transports still hold open.
func (c *core) closeSockets() {
	for s := range c.servers {
		sock.Close(s.fd)
	}
	for t := range c.transports {
		sock.Close(t.fd)
	}
	for t := range c.datagrams {
		sock.Close(t.fd)
	}
	c.servers, c.transports, c.datagrams = nil, nil, nil
}

func (c *core) close() error {
	if c.running.Load() {
		return fmt.Errorf("Close: %w", ErrRunning)
	}
	if c.closed.Load() {
		return nil
	}
	c.closeSignals()
	c.stopTasks()
	c.stopIdle()
	c.exec.shutdown()
	c.closeChildren()
	c.closeSockets()
	c.closed.Store(true)
	err := errors.Join(c.ts.close(), c.sel.Close())
	c.slotq = nil
	c.slots, c.free, c.fds, c.events = nil, nil, nil, nil
	c.timers = nil
	return err
}
