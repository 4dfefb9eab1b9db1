package load

import (
	"net"
	"runtime"
	"sync"
	"time"

	"github.com/loopbench/loopbench"
	"github.com/loopbench/loopbench/internal/loophook"
)

// worker is one loop of a run and everything it owns: its connections,
// their schedule, its recorder and error log. Everything but start,
// landed and over is touched only on the loop's thread.
type worker struct {
	run    *shared
	l      *loopbench.Loop
	cpu    int // the CPU its thread is pinned to; -1: not pinned
	conns  []*conn
	rec    *recorder
	errs   *errorLog
	buf    []byte        // the read buffer its connections share
	stamps stampReader   // reads with the receive timestamp
	base   time.Duration // the loop time of the run's start
	zero   time.Time     // the run's start, read on the monotonic clock
	start  chan time.Time

	closed    bool // the window closed (its end, a stop or an interrupt)
	busy      int  // requests in flight or waiting for a dial
	dialing   int  // first dials not yet landed
	opened    int
	firstErr  error
	work      uint64        // sends, reads and timeouts done so far (spinTick)
	spinLast  time.Duration // the spin's last tick (spinTick)
	spinMark  uint64        // work at that tick
	deadlines deadlines
	sends     sends
	counts    counts

	mu     sync.Mutex // guards landed and over, which dial goroutines reach
	landed []landing
	over   bool // the loop is done: a dial landing now is closed

	landFn, stopFn, interruptFn, expireFn, sendFn func()
}

// landing is a finished dial on its way to the loop.
type landing struct {
	c   *conn
	nc  net.Conn
	err error
}

func newWorker(r *shared, cpu int) (*worker, error) {
	l, err := newLoop()
	if err != nil {
		return nil, err
	}
	w := &worker{run: r, l: l, cpu: cpu, rec: newRecorder(), errs: newErrorLog(), buf: make([]byte, 64<<10), start: make(chan time.Time)}
	w.landFn, w.stopFn, w.interruptFn, w.expireFn = w.land, func() { w.closeWindow(r.stoppedAt()) }, w.interrupt, w.expire
	w.sendFn = w.sendDue
	w.rec.series = newSeries(r.s.measure, r.s.end-r.s.measure, seriesInterval(r.cfg))
	return w, nil
}

// now is the time since the run's start: on the loop's clock (both are
// the runtime's monotonic clock), so that a time read with time.Now for
// the receive lag gives it too (t.Sub(w.zero)) without a second read.
func (w *worker) now() time.Duration { return time.Since(w.zero) }

// callAt calls fn at t, a time since the run's start.
func (w *worker) callAt(t time.Duration, fn func()) loopbench.Handle {
	w.counts.timers++
	return w.l.CallAt(w.base+t, fn).Handle
}

// counts are what a loop did, for the tests and benchmarks of its cost
// per request.
type counts struct {
	timers, reads, writes int64 // loop timers set, read and write calls
	moves                 int64 // yields after which the loop ran on another thread
}

// main is the loop's goroutine: on its own locked thread, pinned, it
// opens the connections, reports to Run, waits for the start, and runs
// the schedule until the window closed and no request is in flight.
func (w *worker) main() {
	defer w.run.workers.Done()
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	prepareThread(w.cpu)
	loophook.Yield(w.l, w.yield)
	defer w.closeAll()
	w.dialing = len(w.conns)
	for _, c := range w.conns {
		c.open()
	}
	w.l.RunForever()
	w.run.ready <- dialResult{w.opened, w.firstErr}
	start, ok := <-w.start
	if !ok {
		return
	}
	w.zero = start
	w.base = w.l.Time() - time.Since(start)
	w.callAt(w.run.s.end, func() { w.closeWindow(w.run.s.end) })
	for _, c := range w.conns {
		c.next()
	}
	w.l.RunForever()
}

// yield is the loop's yield (see loophook.Yield), made with the
// goroutine unlocked from its thread. A locked goroutine cannot yield
// without handing its P to another thread and back, three futex calls at
// least; unlocked, the runtime's yield resumes it on its own thread
// unless another thread steals it first. When it did move, the new thread
// is prepared as the first was (pinned, 1 ns timer slack) before the
// goroutine is locked to it.
func (w *worker) yield(goyield func()) {
	t := threadID()
	runtime.UnlockOSThread()
	goyield()
	runtime.LockOSThread()
	if threadID() != t {
		w.counts.moves++
		prepareThread(w.cpu)
	}
}

// firstDial counts a connection's first dial.
func (w *worker) firstDial(err error) {
	if err != nil && w.firstErr == nil {
		w.firstErr = err
	}
	if err == nil {
		w.opened++
	}
	if w.dialing--; w.dialing == 0 {
		w.l.Stop()
	}
}

// dial dials for c off the loop; the outcome lands on the loop (land).
func (w *worker) dial(c *conn) {
	w.run.dials.Add(1)
	go func() {
		defer w.run.dials.Done()
		nc, err := w.run.cfg.Dial(w.run.cfg.Addr)
		w.mu.Lock()
		defer w.mu.Unlock()
		if w.over {
			if nc != nil {
				nc.Close()
			}
			return
		}
		w.landed = append(w.landed, landing{c, nc, err})
		if len(w.landed) == 1 {
			w.l.TryCallSoonThreadsafe(w.landFn)
		}
	}()
}

// land hands the finished dials to their connections.
func (w *worker) land() {
	w.mu.Lock()
	ls := w.landed
	w.landed = nil
	w.mu.Unlock()
	for _, d := range ls {
		d.c.dialled(d.nc, d.err)
	}
}

// closeWindow closes the window at end (time since the start): no
// request is sent after it, the window's requests not sent by then are
// recorded as unsent, and the loop stops once none is in flight.
func (w *worker) closeWindow(end time.Duration) {
	if w.closed {
		return
	}
	w.closed = true
	if testHookWindowClosed != nil {
		testHookWindowClosed()
	}
	s := w.run.s
	for _, c := range w.conns {
		c.cancelWait()
		if s.open() {
			// c.k is past a request in flight, at one waiting for a dial.
			w.rec.unsentFrom(c.at, c.k, s.measure, min(end, s.end))
		}
	}
	w.stopSends() // a spin through busy connections ends with the window
	w.maybeDone()
}

// interrupt closes the window now and leaves the requests in flight
// out: they are no longer counted as the window's.
func (w *worker) interrupt() {
	w.closeWindow(w.run.stoppedAt())
	for _, c := range w.conns {
		c.abandon()
	}
	w.l.Stop()
}

func (w *worker) maybeDone() {
	if w.closed && w.busy == 0 {
		w.l.Stop()
	}
}

// spinTick, at each of a spin's polls (and at its end), counts the time
// the loop spun with nothing to do: the time since the last tick when no
// work (a send, a read, a timeout) was done in between, from the window's
// start on (the CPU it is taken from is the window's). A spin as long
// as the run leaves out only its idle polls, so the CPU left
// (SpinFreeCores) is still the work's, and a CPU-bound generator that
// spins is still seen as one. The spin is the sends' (sends.spinning).
func (w *worker) spinTick(now time.Duration) {
	if !w.sends.spinning {
		return
	}
	if measure := w.run.s.measure; w.work == w.spinMark && now > measure {
		w.rec.spin += now - max(w.spinLast, measure)
	}
	w.spinLast, w.spinMark = now, w.work
}

// closeAll closes the connections and every dial that lands from now on.
func (w *worker) closeAll() {
	w.mu.Lock()
	w.over = true
	for _, d := range w.landed {
		if d.nc != nil {
			d.nc.Close()
		}
	}
	w.landed = nil
	w.mu.Unlock()
	for _, c := range w.conns {
		c.drop()
	}
}
