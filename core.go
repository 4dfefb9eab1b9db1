package loopbench

import (
	"errors"
	"fmt"
	"log/slog"
	"math/bits"
	"reflect"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/loopbench/loopbench/selectors"
)

// clockResolution is asyncio's _clock_resolution: a timer is due when its
// deadline is before now + clockResolution. The loop's clock (Go's
// monotonic clock) counts nanoseconds, and the selectors wait with
// nanosecond timeouts where the system has them, rounded up, never down,
// so a timer's wait ends at or after its deadline and the iteration that
// wakes finds it due.
const clockResolution = time.Nanosecond

// maxSelectTimeout caps the select timeout, as asyncio's MAXIMUM_SELECT_TIMEOUT.
const maxSelectTimeout = 24 * time.Hour

// readyQueue is what a CallSoon handle needs of the ready queue
// (impl/ringbuffer, impl/deque): its callbacks are named by position.
type readyQueue interface {
	At(pos uint64) (func(), bool)
	Clear(pos uint64) bool
}

// fdEntry is what the loop watches on one fd: reader and writer slot ids
// plus one (0 = none).
//
// reg is what the selector holds for the fd: the events of its callbacks,
// or a oneshot registration (see addOnce), which stays after its callback
// is gone, disarmed or about to be, so that the next operation on the fd
// re-arms it with one Modify.
type fdEntry struct {
	reader, writer uint32
	reg            selectors.Events
}

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

// A part is one subsystem's state on a loop, which Close ends: its
// signal handlers, tasks, idle coroutines, executor, children,
// connections being made and open sockets. New makes every part
// (newParts); each subsystem reaches its own by its kind.
type part interface{ closePart() }

// The kinds of part, in the order Close ends them: what could still
// start work (signal handlers, tasks, executor jobs) goes first, then
// the children, then the sockets, the dialer's first.
const (
	partSignals = iota
	partTasks
	partCoroutines
	partExecutor
	partChildren
	partDialer
	partServers
	partTransports
	partDatagrams
	partTLS
	numParts
)

// socket is what an openSet holds: a server, transport or datagram
// endpoint, which closes its socket at the loop's Close.
type socket interface {
	comparable
	closeSocket()
}

// openSet is a part that holds open sockets of one kind: Close closes
// each.
type openSet[T socket] struct{ open map[T]struct{} }

func newOpenSet[T socket]() *openSet[T] { return &openSet[T]{open: map[T]struct{}{}} }

func (s *openSet[T]) add(v T)    { s.open[v] = struct{}{} }
func (s *openSet[T]) remove(v T) { delete(s.open, v) }

func (s *openSet[T]) closePart() {
	for v := range s.open {
		v.closeSocket()
	}
	s.open = nil
}

// core is the state every loop type shares: the handle table, timers,
// selector, fd table, thread-safe queue and the subsystems' parts. The
// generated loop types embed it next to their concrete ready queue.
type core struct {
	slotTable // first: its fields are the core's own, at no offset

	// rq is the concrete ready queue, for the lookups a CallSoon handle
	// makes by position (Cancel, Cancelled). The hot paths use the
	// concrete queue of the generated loop type.
	rq readyQueue

	// The slots of the timer, I/O and thread-safe callbacks an iteration
	// queues, in order; runSlots consumes them in the same iteration (see
	// runSlots for why they need not enter the ready queue).
	slotq    []uint32
	slotHead int

	timers     timerQueue
	lazy       bool
	ncancelled int                  // lazily cancelled timers still in the heap
	keep       func(id uint32) bool // keepTimer, bound once
	dropBits   []uint64             // a compaction's cancelled timers, by slot id

	sel     selectors.Selector
	events  []selectors.Event
	fds     []fdEntry
	watched int // fds registered with sel for callbacks (not the wakeup fd)

	ts    threadsafe
	parts [numParts]part // the subsystems' state, by kind (New makes them)

	forceSigchld bool // tests: watch exits with SIGCHLD, not pidfds

	epoch    time.Time
	clock    func() time.Duration // tests inject a clock; nil = monotonic time since epoch
	yielded  time.Duration        // the loop clock at the last yieldBeforeWait
	yieldVia func(yield func())   // loophook.Yield, and tests: yields through this

	rbuf   []byte // the transports' shared read buffer
	dialer dialer // connections being made, ended by Close

	stopping bool
	running  atomic.Bool
	closed   atomic.Bool

	// The slot callback last run, for the exception handler: its handle
	// (gen<<32 | id), set by take.
	cur uint64

	cfg      Config
	slow     time.Duration
	logger   *slog.Logger
	excMu    sync.Mutex
	excHandl func(ExceptionContext)
}

func (c *core) setup(cfg Config) error {
	cfg = cfg.normalized()
	c.cfg = cfg
	c.lazy = cfg.TimerCancel == "lazy"
	c.slow = cfg.SlowCallbackDuration
	c.epoch = time.Now()
	c.keep = c.keepTimer
	c.logger = slog.Default()
	c.parts[partDialer] = &c.dialer
	timers, err := newTimerQueue(cfg.Timers)
	if err != nil {
		return err
	}
	c.timers = timers
	sel, err := selectors.New(cfg.Selector)
	if err != nil {
		return err
	}
	c.sel = sel
	if cfg.Debug && sel.Resolution() >= time.Millisecond {
		c.logger.Info("loopbench: the selector waits in whole milliseconds here", "selector", sel.Name(), "resolution", sel.Resolution())
	}
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
	slots := c.slots // a local: the marks' stores cannot move it
	for id := range slots {
		if slots[id].flags&lazyDead == lazyDead {
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

// cancelSlot marks slot id cancelled and frees it unless a queue still
// holds it; in eager mode the timer queue is told at once (see
// Config.TimerCancel).
func (c *core) cancelSlot(id uint32) {
	s := &c.slots[id]
	s.flags |= flagCancelled
	if s.flags&flagHeap != 0 && !c.lazy {
		c.timers.Remove(id)
		s.flags &^= flagHeap
	}
	if s.flags&(flagHeap|flagQueued) == 0 {
		c.release(id)
		return
	}
	*c.fns.at(id) = nil // the slot stays until the queue holding it lets go
	if s.flags&flagHeap != 0 {
		c.ncancelled++
	}
}

// sweepCancelled is step 1 of the iteration (lazy mode only); it inlines
// into the iteration, which so pays a call only with timers to sweep.
func (c *core) sweepCancelled() {
	if c.ncancelled != 0 {
		c.sweep()
	}
}

// sweep drops the cancelled timers at the head of the queue, or all of
// them by a compaction when they are more than half of over 100.
func (c *core) sweep() {
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

// queueDue is step 4 of the iteration: it queues the timers due before
// end, in deadline order, and frees the lazily cancelled ones among them.
// The timer queue appends the due ids to slotq itself, in one call; the
// pass over them drops the cancelled ones in place.
func (c *core) queueDue(end time.Duration) {
	n := len(c.slotq)
	due := c.timers.PopBefore(int64(end), c.slotq)
	q := due[:n]
	for _, id := range due[n:] {
		s := &c.slots[id]
		s.flags &^= flagHeap
		if s.flags&flagCancelled != 0 {
			c.ncancelled--
			c.release(id)
			continue
		}
		s.flags |= flagQueued
		q = append(q, id)
	}
	c.slotq = q
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

func (c *core) close() error {
	if c.running.Load() {
		return fmt.Errorf("Close: %w", ErrRunning)
	}
	if c.closed.Load() {
		return nil
	}
	for _, p := range c.parts {
		p.closePart()
	}
	c.closed.Store(true)
	c.shut = true
	err := errors.Join(c.ts.close(), c.sel.Close())
	c.slotq = nil
	c.slots, c.fns, c.free, c.fds, c.events = nil, fnTable{}, nil, nil, nil
	c.timers = nil
	return err
}
