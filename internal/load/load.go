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
package load

import (
	"context"
	"fmt"
	"io"
	"net"
	"sync"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"
)

// Config describes a load run.
type Config struct {
	Addr     string
	Conns    int
	Size     int                                 // message size in bytes
	Duration time.Duration                       // measured time
	Warmup   time.Duration                       // time before measuring
	Rate     float64                             // requests per second over all connections; 0 = closed loop
	Requests int64                               // stop after this many measured requests (0: no limit)
	Dial     func(addr string) (net.Conn, error) `json:"-"` // default: TCP with a 5 s timeout
}

// Latencies are percentiles of one latency measure.
type Latencies struct {
	P50, P90, P99, P999, Max time.Duration
}

// Report is the outcome of a run.
type Report struct {
	Offered     float64   // scheduled req/s (0 in closed loop)
	Achieved    float64   // measured round trips per second
	Requests    int64     // measured round trips
	Errors      int64     // connections ended by an I/O error
	ConnErrors  []string  // connections that could not be opened
	Corrected   Latencies // from the intended send time
	Uncorrected Latencies // from the actual send time
	Behind      bool      // the run did not keep its schedule
	// PacingLagP99 is the 99th percentile of how late the generator sent a
	// request it was free to send (the previous answer was in): its own
	// timer and scheduling delay, which the corrected latencies include.
	PacingLagP99 time.Duration
	Elapsed      time.Duration
}

// histogram bounds: 1 µs to 60 s, 3 significant digits, in µs.
func newHistogram() *hdrhistogram.Histogram { return hdrhistogram.New(1, 60_000_000, 3) }

// conn is one connection's state.
type conn struct {
	c                           net.Conn
	corrected, uncorrected, lag *hdrhistogram.Histogram
	requests                    int64
	err                         error
}

// Run runs the load and reports it. It fails only when no connection
// could be opened; connection errors are reported.
func Run(ctx context.Context, cfg Config) (Report, error) {
	if cfg.Conns < 1 || cfg.Size < 1 || cfg.Duration <= 0 || cfg.Rate < 0 {
		return Report{}, fmt.Errorf("load: want conns >= 1, size >= 1, duration > 0, rate >= 0")
	}
	dial := cfg.Dial
	if dial == nil {
		dial = func(addr string) (net.Conn, error) { return net.DialTimeout("tcp", addr, 5*time.Second) }
	}
	var rep Report
	var conns []*conn
	for range cfg.Conns {
		c, err := dial(cfg.Addr)
		if err != nil {
			rep.ConnErrors = append(rep.ConnErrors, err.Error())
			continue
		}
		conns = append(conns, &conn{c: c, corrected: newHistogram(), uncorrected: newHistogram(), lag: newHistogram()})
	}
	if len(conns) == 0 {
		return rep, fmt.Errorf("cannot connect to %s: %s", cfg.Addr, rep.ConnErrors[0])
	}
	start := time.Now()
	s := schedule{start: start, measure: start.Add(cfg.Warmup), end: start.Add(cfg.Warmup + cfg.Duration)}
	if cfg.Rate > 0 {
		s.interval = time.Duration(float64(time.Second) * float64(len(conns)) / cfg.Rate)
		rep.Offered = cfg.Rate
	}
	var limit limiter
	limit.left = cfg.Requests
	var wg sync.WaitGroup
	for i, c := range conns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer c.c.Close()
			// Spread the connections' schedules over one interval.
			c.run(ctx, s.offset(i, len(conns)), cfg.Size, &limit)
		}()
	}
	wg.Wait()
	rep.Elapsed = min(time.Since(s.measure), cfg.Duration)
	return rep.merge(conns), nil
}

// schedule is the shared timing of a run.
type schedule struct {
	start, measure, end time.Time
	interval            time.Duration // between one connection's sends; 0 = closed loop
}

func (s schedule) offset(i, n int) schedule {
	s.start = s.start.Add(s.interval * time.Duration(i) / time.Duration(n))
	return s
}

// limiter bounds the measured requests of all connections together.
type limiter struct {
	mu   sync.Mutex
	left int64 // 0: no bound
	hit  bool
}

func (l *limiter) take() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.hit {
		return false
	}
	if l.left > 0 {
		if l.left--; l.left == 0 {
			l.hit = true
		}
	}
	return true
}

func (c *conn) run(ctx context.Context, s schedule, size int, limit *limiter) {
	msg, got := make([]byte, size), make([]byte, size)
	var prevDone time.Time
	for i := 0; ctx.Err() == nil; i++ {
		intended := time.Now()
		if s.interval > 0 {
			intended = s.start.Add(time.Duration(i) * s.interval)
			waitUntil(intended)
		}
		sent := time.Now()
		if !sent.Before(s.end) {
			return
		}
		if s.interval == 0 {
			intended = sent // closed loop: no schedule to fall behind
		}
		measured := !intended.Before(s.measure)
		if measured && !limit.take() {
			return
		}
		if _, err := c.c.Write(msg); err != nil {
			c.err = err
			return
		}
		if _, err := io.ReadFull(c.c, got); err != nil {
			c.err = err
			return
		}
		done := time.Now()
		if measured {
			c.corrected.RecordValue(done.Sub(intended).Microseconds())
			c.uncorrected.RecordValue(done.Sub(sent).Microseconds())
			if s.interval > 0 {
				free := intended
				if prevDone.After(free) {
					free = prevDone
				}
				c.lag.RecordValue(sent.Sub(free).Microseconds())
			}
			c.requests++
		}
		prevDone = done
	}
}

// waitUntil sleeps until t. It does not spin: on a machine the server
// shares, a spinning generator slows the server it measures. The runtime's
// timers can wake late by up to a millisecond; Report.PacingLagP99 shows
// how late, and the CLI warns when it matters.
func waitUntil(t time.Time) {
	if d := time.Until(t); d > 0 {
		time.Sleep(d)
	}
}

// merge combines the connections' histograms into the report.
func (rep Report) merge(conns []*conn) Report {
	corrected, uncorrected, lag := newHistogram(), newHistogram(), newHistogram()
	for _, c := range conns {
		corrected.Merge(c.corrected)
		uncorrected.Merge(c.uncorrected)
		lag.Merge(c.lag)
		rep.Requests += c.requests
		if c.err != nil {
			rep.Errors++
		}
	}
	rep.Corrected, rep.Uncorrected = percentiles(corrected), percentiles(uncorrected)
	rep.PacingLagP99 = time.Duration(lag.ValueAtQuantile(99)) * time.Microsecond
	if rep.Elapsed > 0 {
		rep.Achieved = float64(rep.Requests) / rep.Elapsed.Seconds()
	}
	rep.Behind = rep.Offered > 0 && rep.Achieved < 0.95*rep.Offered
	return rep
}

func percentiles(h *hdrhistogram.Histogram) Latencies {
	at := func(q float64) time.Duration { return time.Duration(h.ValueAtQuantile(q)) * time.Microsecond }
	return Latencies{P50: at(50), P90: at(90), P99: at(99), P999: at(99.9), Max: time.Duration(h.Max()) * time.Microsecond}
}
