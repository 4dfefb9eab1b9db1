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
// the same. Latencies go to per-connection HDR histograms, merged at the
// end.
//
// What is counted: the run sends from its start for Warmup+Duration and
// measures the window [start+Warmup, start+Warmup+Duration). Every
// response that arrives in the window counts, whenever its request was
// scheduled, and its corrected latency runs from that request's intended
// time: under overload the backlog the warmup left is measured, not
// dropped, so the achieved rate does not depend on Warmup. No request is
// sent after the window; one in flight when it closes may still arrive,
// uncounted. Every read and write has a deadline of Timeout after the send,
// so a stalled server ends the run at the window's end plus Timeout at the
// latest; a request that times out, fails, or gets a reply other than its
// echo is an error, and its connection is dialled again.
package load

import (
	"context"
	"fmt"
	"net"
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
	Requests int64         // stop after this many measured responses (0: no limit)
	// StartAt, when set, is the wall-clock instant the run starts sending,
	// its connections opened before: N generators given one StartAt keep
	// schedules that line up. An instant already past starts at once.
	StartAt time.Time
	// Dial opens a connection; default: TCP with Timeout.
	Dial func(addr string) (net.Conn, error) `json:"-"`
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
	Achieved float64 // responses in the window per second of window
	Requests int64   // responses that arrived in the window
	Errors   int64   // requests that failed, timed out or got a wrong reply, and failed dials
	// ErrorTexts groups the errors by text, most frequent first.
	ErrorTexts  []ErrorCount
	Corrected   Latencies // from the intended send time
	Uncorrected Latencies // from the actual send time
	// The histograms behind the percentiles, in µs, for merging runs.
	CorrectedHist, UncorrectedHist *hdrhistogram.Histogram `json:"-"`
	Behind                         bool                    // the run did not keep its schedule
	// PacingLagP99 is the 99th percentile of how late the generator sent a
	// request it was free to send (the previous answer was in): its own
	// timer and scheduling delay, which the corrected latencies include.
	PacingLagP99 time.Duration
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

// ErrorRate is errors over errors plus measured responses.
func (r Report) ErrorRate() float64 {
	if n := r.Errors + r.Requests; n > 0 {
		return float64(r.Errors) / float64(n)
	}
	return 0
}

// NewHistogram returns a latency histogram as the runs record them: in
// µs, 1 µs to 60 s, 3 significant digits. Histograms merged with a run's
// must have these bounds.
func NewHistogram() *hdrhistogram.Histogram { return hdrhistogram.New(1, 60_000_000, 3) }

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

// Run runs the load and reports it. It fails only on a bad Config or when
// no connection could be opened at the start; later failures are errors
// in the report. When ctx ends first, the report covers what was measured
// and says it was interrupted.
func Run(ctx context.Context, cfg Config) (Report, error) {
	if err := cfg.Validate(); err != nil {
		return Report{}, err
	}
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
	rep := Report{Label: cfg.Label, Duration: cfg.Duration}
	errs := newErrorLog()
	var conns []*conn
	for range cfg.Conns {
		c, err := cfg.Dial(cfg.Addr)
		if err != nil {
			errs.add(err)
			continue
		}
		conns = append(conns, newConn(c))
	}
	if len(conns) == 0 {
		return rep, fmt.Errorf("cannot connect to %s: %s", cfg.Addr, errs.first())
	}
	if wait := time.Until(cfg.StartAt); !cfg.StartAt.IsZero() && wait > 0 {
		t := time.NewTimer(wait)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			for _, c := range conns {
				c.close()
			}
			rep.Interrupted = true
			return rep, fmt.Errorf("interrupted while waiting for the start at %s", cfg.StartAt.Format(time.RFC3339Nano))
		}
	}
	cpu0 := processCPU()
	wall0 := time.Now()
	start := wall0
	s := &schedule{start: start, measure: start.Add(cfg.Warmup), end: start.Add(cfg.Warmup + cfg.Duration), timeout: cfg.Timeout}
	if cfg.Rate > 0 {
		s.interval = time.Duration(float64(time.Second) * float64(len(conns)) / cfg.Rate)
		rep.Offered = cfg.Rate
	}
	run := &shared{cfg: cfg, s: s, errs: errs, limit: limiter{left: cfg.Requests}}
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
	for _, c := range conns {
		c.close()
	}
	end := s.end
	if t := run.stoppedAt(); !t.IsZero() && t.Before(end) {
		end = t
		rep.Interrupted = ctx.Err() != nil
	}
	rep.WindowStart = s.measure
	rep.WindowEnd = end
	if end.Before(s.measure) {
		rep.WindowEnd = s.measure
	}
	rep.Elapsed = rep.WindowEnd.Sub(rep.WindowStart)
	rep.Wall = time.Since(wall0)
	rep.CPU = processCPU() - cpu0
	rep.Errors, rep.ErrorTexts = errs.counts()
	return rep.merge(conns), nil
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

// inWindow reports whether a response that arrived at done is counted.
func (s *schedule) inWindow(done time.Time) bool {
	return !done.Before(s.measure) && done.Before(s.end)
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

// merge combines the connections' histograms into the report.
func (rep Report) merge(conns []*conn) Report {
	corrected, uncorrected, lag := NewHistogram(), NewHistogram(), NewHistogram()
	for _, c := range conns {
		corrected.Merge(c.corrected)
		uncorrected.Merge(c.uncorrected)
		lag.Merge(c.lag)
		rep.Requests += c.requests
	}
	rep.CorrectedHist, rep.UncorrectedHist = corrected, uncorrected
	rep.Corrected, rep.Uncorrected = Percentiles(corrected), Percentiles(uncorrected)
	rep.PacingLagP99 = time.Duration(lag.ValueAtQuantile(99)) * time.Microsecond
	if rep.Elapsed > 0 {
		rep.Achieved = float64(rep.Requests) / rep.Elapsed.Seconds()
	}
	rep.Behind = rep.Offered > 0 && rep.Achieved < 0.95*rep.Offered
	return rep
}

// Percentiles reads the percentiles of a histogram in µs.
func Percentiles(h *hdrhistogram.Histogram) Latencies {
	at := func(q float64) time.Duration { return time.Duration(h.ValueAtQuantile(q)) * time.Microsecond }
	return Latencies{P50: at(50), P90: at(90), P99: at(99), P999: at(99.9), Max: time.Duration(h.Max()) * time.Microsecond}
}
