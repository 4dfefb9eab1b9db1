package load

import (
	"context"
	"fmt"
	"math"
	"sync"
	"sync/atomic"
	"time"

	"github.com/loopbench/loopbench"
	"github.com/loopbench/loopbench/internal/measure/loadresult"
)

// Run runs the load and reports it. It fails only on a bad Config or when
// no connection could be opened at the start (one that could not is
// dialled again for its first request); later failures are errors in the
// report. When ctx ends first, the report covers what was measured and
// says it was interrupted; the requests in flight then are left out.
func Run(ctx context.Context, cfg Config) (loadresult.Result, error) {
	if err := cfg.Validate(); err != nil {
		return loadresult.Result{}, err
	}
	cfg = cfg.withDefaults()
	rep := loadresult.Result{Label: cfg.Label, Addr: cfg.Addr, Conns: cfg.Conns, Size: cfg.Size, Duration: cfg.Duration, PacingMethod: PacingMethod}
	if cfg.HTTP != nil {
		rep.Proto = "http"
	}
	run, err := newShared(cfg)
	if err != nil {
		return rep, err
	}
	defer run.close()
	if opened, first := run.dialled(); opened == 0 {
		run.abort()
		return rep, &connectError{cfg.Addr, first}
	}
	if wait := time.Until(cfg.StartAt); !cfg.StartAt.IsZero() && wait > 0 {
		t := time.NewTimer(wait)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			run.abort()
			rep.Interrupted = true
			return rep, fmt.Errorf("interrupted while waiting for the start at %s", cfg.StartAt.Format(time.RFC3339Nano))
		}
	}
	start := processMark()
	run.begin(start.at)
	stopWatch := run.watch(ctx)
	window := markWindow(run.s.measure, start, processMark)
	run.workers.Wait()
	stopWatch()
	end := run.s.end
	if t := run.stoppedAt(); t < end {
		end = t
		rep.Interrupted = run.interrupted.Load()
	}
	if testHookRun != nil {
		testHookRun(run.ws)
	}
	from := window()
	return run.result(rep, start.at.Add(run.s.measure), start.at.Add(max(end, run.s.measure)), time.Since(from.at), processCPU()-from.cpu), nil
}

// Hooks for the tests: testHookRun sees the loops of a finished run,
// testHookWindowClosed is called on a loop's thread when its window
// closes, every connection still open.
var (
	testHookRun          func([]*worker)
	testHookWindowClosed func()
)

// schedule is the timing of a run, in time since its start.
type schedule struct {
	measure, end time.Duration // the window
	interval     time.Duration // between one connection's sends; 0 = closed loop
	timeout      time.Duration
}

func (s schedule) open() bool { return s.interval > 0 }

// inWindow reports whether t is in the measured window.
func (s schedule) inWindow(t time.Duration) bool { return t >= s.measure && t < s.end }

// notStopped is shared.stopAt's value before a stop.
const notStopped = math.MaxInt64

// shared is what the loops of a run share: the configuration and
// schedule (read only), and the request limit and stop time (atomic).
type shared struct {
	cfg         Config
	s           schedule
	ws          []*worker
	limit       limiter
	stopAt      atomic.Int64 // time since the start of the stop; notStopped
	interrupted atomic.Bool
	workers     sync.WaitGroup // the loops' goroutines
	dials       sync.WaitGroup // dials in progress off the loops
	ready       chan dialResult
	started     time.Time // the schedule's start (begin)
}

// dialResult is a loop's report on its first dials.
type dialResult struct {
	opened int
	first  error
}

// newShared makes the run's loops, one per CPU (at most one per
// connection), deals the connections among them and starts each loop's
// goroutine, which opens its connections.
func newShared(cfg Config) (*shared, error) {
	r := &shared{cfg: cfg, limit: limiter{left: cfg.Requests}, ready: make(chan dialResult)}
	r.s = schedule{measure: cfg.Warmup, end: cfg.Warmup + cfg.Duration, timeout: cfg.Timeout}
	if cfg.Rate > 0 {
		r.s.interval = time.Duration(float64(time.Second) * float64(cfg.Conns) / cfg.Rate)
	}
	r.stopAt.Store(notStopped)
	cpus := cfg.CPUs
	if len(cpus) == 0 {
		cpus = []int{-1}
	}
	n := min(len(cpus), cfg.Conns)
	for i := range n {
		w, err := newWorker(r, cpus[i])
		if err != nil {
			r.close()
			return nil, err
		}
		r.ws = append(r.ws, w)
	}
	for i := range cfg.Conns {
		w := r.ws[i%n]
		w.conns = append(w.conns, newConn(w, r.s.interval*time.Duration(i)/time.Duration(cfg.Conns)))
	}
	for _, w := range r.ws {
		r.workers.Add(1)
		go w.main()
	}
	return r, nil
}

// dialled waits for every loop's first dials.
func (r *shared) dialled() (opened int, first error) {
	for range r.ws {
		d := <-r.ready
		opened += d.opened
		if first == nil {
			first = d.first
		}
	}
	return opened, first
}

// begin starts the loops' schedules at start.
func (r *shared) begin(start time.Time) {
	r.started = start
	for _, w := range r.ws {
		w.start <- start
	}
}

// abort ends the loops' goroutines before their schedules start.
func (r *shared) abort() {
	for _, w := range r.ws {
		close(w.start)
	}
	r.workers.Wait()
}

// close closes the loops, once their goroutines and the dials in
// progress have ended.
func (r *shared) close() {
	r.dials.Wait()
	for _, w := range r.ws {
		w.l.Close()
	}
}

// stop stops the run at t (time since the start), the first time, and
// tells every loop.
func (r *shared) stop(t time.Duration, from *worker) {
	r.setStop(t)
	for _, w := range r.ws {
		if w == from {
			w.closeWindow(r.stoppedAt())
			continue
		}
		w.l.TryCallSoonThreadsafe(w.stopFn)
	}
}

// setStop sets the stop time to t unless an earlier one is set.
func (r *shared) setStop(t time.Duration) {
	for {
		old := r.stopAt.Load()
		if old <= int64(t) || r.stopAt.CompareAndSwap(old, int64(t)) {
			return
		}
	}
}

func (r *shared) stoppedAt() time.Duration { return time.Duration(r.stopAt.Load()) }

// watch interrupts the run when ctx ends; the func it returns ends the
// watch.
func (r *shared) watch(ctx context.Context) func() {
	done, over := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(over)
		select {
		case <-ctx.Done():
			r.interrupted.Store(true)
			r.setStop(time.Since(r.started))
			for _, w := range r.ws {
				w.l.TryCallSoonThreadsafe(w.interruptFn)
			}
		case <-done:
		}
	}()
	return func() { close(done); <-over }
}

// limiter bounds the measured responses of all the loops together.
type limiter struct {
	left int64 // 0: no bound
	took atomic.Int64
}

// take counts one measured response: ok is false once the bound was
// reached, last true for the response that reached it.
func (l *limiter) take() (ok, last bool) {
	if l.left == 0 {
		return true, false
	}
	n := l.took.Add(1)
	return n <= l.left, n == l.left
}

// result merges the loops' parts (loadresult.Merge) into the run's
// result: id's identity, the window from start to end, the wall time and
// the process's CPU from the window's start to the run's end (measured
// once for the loops together), and the rates over the window.
func (r *shared) result(id loadresult.Result, start, end time.Time, wall, cpu time.Duration) loadresult.Result {
	parts := make([]loadresult.Result, len(r.ws))
	for i, w := range r.ws {
		parts[i] = w.rec.result(w.errs)
		parts[i].WindowStart, parts[i].WindowEnd = start, end
	}
	res := loadresult.Merge(parts...)
	res.Name, res.Label, res.Addr, res.Conns, res.Size = id.Name, id.Label, id.Addr, id.Conns, id.Size
	res.PacingMethod, res.Duration, res.Interrupted = id.PacingMethod, id.Duration, id.Interrupted
	res.Wall, res.CPU, res.Loops = wall, cpu, len(r.ws)
	if r.cfg.Rate > 0 {
		res.Offered = r.cfg.Rate
	}
	if res.Elapsed > 0 {
		res.Achieved = float64(res.Requests) / res.Elapsed.Seconds()
	}
	res.Behind = res.Offered > 0 && res.Achieved < MinAchieved*res.Offered
	return res
}

// PacingMethod names how the generator waits for a send time.
const PacingMethod = "loop timers (CallAt)"

// newLoop makes a generator loop: the default variant.
func newLoop() (*loopbench.Loop, error) { return loopbench.New(loopbench.Config{}) }
