// Package load is the load generator of `loopbench load`: request/response
// round trips over TCP against any echo server, wrk2-style.
//
// Each connection has one request outstanding. In open-loop mode (Rate >
// 0) the requests follow a fixed schedule of intended send times, and the
// corrected latency of a request is measured from its intended time, so
// a server stall shows in it for every request the stall delayed
// (coordinated omission corrected); the uncorrected latency, from the
// actual send, is reported next to it. In closed-loop mode (Rate 0) each
// connection sends as soon as the previous answer is in, and the two are
// the same. The generator waits for a send time in clock_nanosleep on
// Linux (see PacingMethod), and reports how late it sent (the pacing lag).
//
// What is measured: the run sends from its start for Warmup+Duration; the
// window is [start+Warmup, start+Warmup+Duration). The latencies are those
// of the window's requests: the requests scheduled in it (open loop) or
// sent in it (closed loop), each of which is answered (its latency
// recorded, whenever the answer comes), times out (recorded at its time
// to the timeout, at least Timeout, a lower bound; also an error), fails
// otherwise (an error, not recorded), or is still unsent when the window
// closes because its connection was busy (recorded at its lateness then,
// a lower bound, and counted as Unsent). So the tail a stalled or
// overloaded server causes is never dropped, and Scheduled = Answered +
// TimedOut + Unsent + the other errors. Histograms are in nanoseconds.
//
// The throughput is counted apart, by arrival: Requests are the answers
// that arrived in the window, whenever their requests were scheduled, so
// under overload the achieved rate is the server's and does not depend on
// Warmup. Errors are the failures of the window's requests only. No
// request is sent after the window; one in flight when it closes gets
// until its deadline (Timeout after its send), so a stalled server ends
// the run at the window's end plus Timeout at the latest.
package load

import (
	"cmp"
	"context"
	"fmt"
	"net"
	"runtime"
	"sync"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"
)

// Config describes a load run.
type Config struct {
	Addr     string
	Label    string // names the run in results; default: Addr
	Conns    int
	Size     int           // message size in bytes (at least 8: each carries its sequence number)
	Duration time.Duration // the measured window
	Warmup   time.Duration // sending before the window
	Timeout  time.Duration // per request; 0 means 2 s
	Rate     float64       // requests per second over all connections; 0 = closed loop
	Requests int64         // stop after this many of the window's requests are answered (0: no limit)
	// StartAt, when set, is the wall-clock instant the run starts sending,
	// its connections opened before: N generators given one StartAt keep
	// schedules that line up. An instant already past starts at once.
	StartAt time.Time
	// Dial opens a connection; default: TCP with Timeout.
	Dial func(addr string) (net.Conn, error) `json:"-"`

	// wait waits for a send time; default sleepFor. Tests wait in a
	// synctest bubble's virtual time instead.
	wait func(time.Duration)
}

// DefaultTimeout is the per-request timeout when Config.Timeout is 0.
const DefaultTimeout = 2 * time.Second

// Latencies are percentiles of one latency measure.
type Latencies struct {
	P50, P90, P99, P999, Max time.Duration
}

// Report is the outcome of a run.
type Report struct {
	Label    string
	Offered  float64 // scheduled req/s (0 in closed loop)
	Achieved float64 // Requests per second of window
	Requests int64   // answers that arrived in the window
	// Scheduled are the window's requests (sent, in closed loop); each is
	// Answered, TimedOut, failed otherwise, or Unsent.
	Scheduled, Answered, TimedOut, Unsent int64
	Errors                                int64 // the window's requests that failed (timeouts included)
	// ErrorTexts groups the errors by text, most frequent first.
	ErrorTexts  []ErrorCount
	Corrected   Latencies // from the intended send time
	Uncorrected Latencies // from the actual send time (unsent requests have none)
	// PacingLag is how late the generator sent a request it was free to
	// send (its intended time had come and the previous answer was in):
	// its own timer and scheduling delay, which the corrected latencies
	// include.
	PacingLag Latencies
	// Overflow counts latencies beyond the histograms' 60 s, recorded as 60 s.
	Overflow int64
	// The histograms behind the percentiles, in ns, for merging runs.
	CorrectedHist, UncorrectedHist, PacingLagHist *hdrhistogram.Histogram `json:"-"`
	Behind                                        bool                    // achieved below 95 % of offered
	// Elapsed is the part of the window the run covered: Duration, or less
	// when it was interrupted or stopped at Requests.
	Elapsed     time.Duration
	Duration    time.Duration // the window asked for
	Interrupted bool          // stopped by its context before the window closed
	// WindowStart and WindowEnd are the measured window in wall-clock time.
	WindowStart, WindowEnd time.Time
	// CPU is the generator process's user+system time over the run, Wall
	// the run's wall time: CPU/Wall is the cores it kept busy.
	CPU, Wall time.Duration
}

// Cores is the CPU the generator kept busy, in cores.
func (r Report) Cores() float64 {
	if r.Wall <= 0 {
		return 0
	}
	return r.CPU.Seconds() / r.Wall.Seconds()
}

// ErrorRate is the share of the window's requests that failed.
func (r Report) ErrorRate() float64 {
	if r.Scheduled > 0 {
		return float64(r.Errors) / float64(r.Scheduled)
	}
	return 0
}

// Validate reports the first field out of range, naming its flag.
func (cfg Config) Validate() error {
	switch {
	case cfg.Conns < 1:
		return fmt.Errorf("-conns %d: want at least 1", cfg.Conns)
	case cfg.Size < 8:
		return fmt.Errorf("-size %d: want at least 8 bytes (each request carries its sequence number)", cfg.Size)
	case cfg.Duration <= 0:
		return fmt.Errorf("-duration %v: want a positive duration", cfg.Duration)
	case cfg.Warmup < 0:
		return fmt.Errorf("-warmup %v: want zero or more", cfg.Warmup)
	case cfg.Timeout < 0:
		return fmt.Errorf("-timeout %v: want a positive duration", cfg.Timeout)
	case cfg.Rate < 0:
		return fmt.Errorf("-rate %g: want zero (closed loop) or more", cfg.Rate)
	case cfg.Requests < 0:
		return fmt.Errorf("-requests %d: want zero (no limit) or more", cfg.Requests)
	}
	return nil
}

// withDefaults fills in the Timeout, Label and Dial left zero.
func (cfg Config) withDefaults() Config {
	if cfg.Timeout == 0 {
		cfg.Timeout = DefaultTimeout
	}
	if cfg.Label == "" {
		cfg.Label = cfg.Addr
	}
	if cfg.Dial == nil {
		timeout := cfg.Timeout
		cfg.Dial = func(addr string) (net.Conn, error) { return net.DialTimeout("tcp", addr, timeout) }
	}
	if cfg.wait == nil {
		cfg.wait = sleepFor
	}
	return cfg
}

// Run runs the load and reports it. It fails only on a bad Config or when
// no connection could be opened at the start (one that could not is
// dialled again for its first request); later failures are errors in the
// report. When ctx ends first, the report covers what was measured and
// says it was interrupted.
func Run(ctx context.Context, cfg Config) (Report, error) {
	if err := cfg.Validate(); err != nil {
		return Report{}, err
	}
	cfg = cfg.withDefaults()
	rep := Report{Label: cfg.Label, Duration: cfg.Duration}
	if cfg.Rate > 0 {
		defer reserveProcs(cfg.Conns)()
	}
	conns, err := dialAll(cfg)
	if err != nil {
		return rep, err
	}
	defer func() {
		for _, c := range conns {
			c.close()
		}
	}()
	if wait := time.Until(cfg.StartAt); !cfg.StartAt.IsZero() && wait > 0 {
		t := time.NewTimer(wait)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			rep.Interrupted = true
			return rep, fmt.Errorf("interrupted while waiting for the start at %s", cfg.StartAt.Format(time.RFC3339Nano))
		}
	}
	cpu0, start := processCPU(), time.Now()
	s := &schedule{start: start, measure: start.Add(cfg.Warmup), end: start.Add(cfg.Warmup + cfg.Duration), timeout: cfg.Timeout}
	if cfg.Rate > 0 {
		s.interval = time.Duration(float64(time.Second) * float64(len(conns)) / cfg.Rate)
		rep.Offered = cfg.Rate
	}
	run := &shared{cfg: cfg, s: s, errs: newErrorLog(), limit: limiter{left: cfg.Requests}}
	stopWatch := run.watch(ctx, conns)
	var wg sync.WaitGroup
	for i, c := range conns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c.run(run, s.offset(i, len(conns)))
		}()
	}
	wg.Wait()
	stopWatch()
	end := s.end
	if t := run.stoppedAt(); !t.IsZero() && t.Before(end) {
		end = t
		rep.Interrupted = ctx.Err() != nil
	}
	rep.WindowStart, rep.WindowEnd = s.measure, later(end, s.measure)
	rep.Elapsed = rep.WindowEnd.Sub(rep.WindowStart)
	rep.Wall = time.Since(start)
	rep.CPU = processCPU() - cpu0
	rep.Errors, rep.ErrorTexts = run.errs.counts()
	return rep.merge(conns), nil
}

// dialAll opens the run's connections, sharing its recorders among them;
// one that fails is left to dial at its first request. It fails when
// none opens.
func dialAll(cfg Config) ([]*conn, error) {
	recs := recorders(cfg.Conns, runtime.GOMAXPROCS(0))
	conns := make([]*conn, cfg.Conns)
	var first error
	opened := 0
	for i := range conns {
		conns[i] = &conn{rec: recs[i%len(recs)]}
		c, err := cfg.Dial(cfg.Addr)
		if err != nil {
			first = cmp.Or(first, err)
			continue
		}
		conns[i].c = c
		opened++
	}
	if opened == 0 {
		return nil, fmt.Errorf("cannot connect to %s: %s", cfg.Addr, errorText(first))
	}
	return conns, nil
}

// schedule is the shared timing of a run.
type schedule struct {
	start, measure, end time.Time
	interval            time.Duration // between one connection's sends; 0 = closed loop
	timeout             time.Duration
}

func (s schedule) offset(i, n int) schedule {
	s.start = s.start.Add(s.interval * time.Duration(i) / time.Duration(n))
	return s
}

func (s schedule) open() bool { return s.interval > 0 }

// at is the intended time of a connection's i-th request.
func (s schedule) at(i int) time.Time { return s.start.Add(time.Duration(i) * s.interval) }

// inWindow reports whether t is in the measured window.
func (s schedule) inWindow(t time.Time) bool {
	return !t.Before(s.measure) && t.Before(s.end)
}

// shared is the state the connections of a run share.
type shared struct {
	cfg   Config
	s     *schedule
	errs  *errorLog
	limit limiter

	mu      sync.Mutex
	stopped time.Time // when the run was told to stop (interrupt or request limit)
}

// stop stops the run at t, the first time.
func (r *shared) stop(t time.Time) {
	r.mu.Lock()
	if r.stopped.IsZero() {
		r.stopped = t
	}
	r.mu.Unlock()
}

func (r *shared) stoppedAt() time.Time {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.stopped
}

func (r *shared) stopping() bool { return !r.stoppedAt().IsZero() }

// stoppedBefore reports whether the run was stopped before t.
func (r *shared) stoppedBefore(t time.Time) bool {
	s := r.stoppedAt()
	return !s.IsZero() && s.Before(t)
}

// watch stops the run when ctx ends, unblocking every connection's read
// or write at once; the func it returns ends the watch.
func (r *shared) watch(ctx context.Context, conns []*conn) func() {
	done := make(chan struct{})
	go func() {
		select {
		case <-ctx.Done():
			r.stop(time.Now())
			for _, c := range conns {
				c.interrupt()
			}
		case <-done:
		}
	}()
	return func() { close(done) }
}

// limiter bounds the measured responses of all connections together.
type limiter struct {
	mu   sync.Mutex
	left int64 // 0: no bound
	hit  bool
}

// take counts one measured response: ok is false once the bound was
// reached, last true for the response that reached it.
func (l *limiter) take() (ok, last bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.hit {
		return false, false
	}
	if l.left > 0 {
		if l.left--; l.left == 0 {
			l.hit = true
		}
	}
	return true, l.hit
}

// merge combines the recorders into the report.
func (rep Report) merge(conns []*conn) Report {
	corrected, uncorrected, lag := NewHistogram(), NewHistogram(), NewHistogram()
	seen := map[*recorder]bool{}
	for _, c := range conns {
		r := c.rec
		if seen[r] {
			continue
		}
		seen[r] = true
		corrected.Merge(r.corrected)
		uncorrected.Merge(r.uncorrected)
		lag.Merge(r.lag)
		rep.Requests += r.arrived
		rep.Answered += r.answered
		rep.TimedOut += r.timedOut
		rep.Unsent += r.unsent
		rep.Overflow += r.overflow
	}
	rep.Scheduled = rep.Answered + rep.Unsent + rep.Errors // timeouts are errors
	rep.CorrectedHist, rep.UncorrectedHist, rep.PacingLagHist = corrected, uncorrected, lag
	rep.Corrected, rep.Uncorrected, rep.PacingLag = Percentiles(corrected), Percentiles(uncorrected), Percentiles(lag)
	if rep.Elapsed > 0 {
		rep.Achieved = float64(rep.Requests) / rep.Elapsed.Seconds()
	}
	rep.Behind = rep.Offered > 0 && rep.Achieved < 0.95*rep.Offered
	return rep
}
