// Package load is the load generator of `loopbench load`: request/response
// round trips over TCP, UDP or TLS against any echo server, wrk2-style.
//
// Each connection has one request outstanding. In open-loop mode (Rate >
// 0) the requests follow a fixed schedule of intended send times, and the
// corrected latency of a request is measured from its intended time, so
// a server stall shows in it for every request the stall delayed
// (coordinated omission corrected); the uncorrected latency, from the
// actual send, is reported next to it. In closed-loop mode (Rate 0) each
// connection sends as soon as the previous answer is in, and the two are
// the same.
//
// The generator runs on loopbench's own event loop, as wrk2 runs on ae:
// one Loop per generator CPU (Config.CPUs), each on a locked OS thread
// pinned to its CPU, owning its share of the connections (dealt round
// robin), their schedule, one set of histograms and counters, with no
// lock and no goroutine per connection. A send is a direct non-blocking
// write on the socket (a writer callback only when the socket is full);
// answers come through reader callbacks; a loop's request timeouts share
// one loop timer (CallAt), and so do its connections' next send times.
// With Spin, a send due within Spin is awaited by re-checking the clock
// on every iteration (a CallSoon chain, a zero select timeout) instead
// of the timer; the next send is the schedule's, even while its
// connection still awaits an answer, so with Spin at least the interval
// between sends the loop never sleeps, and a runtime thread woken by its
// sleeps does not take the CPU from under a send.
// TLS connections go through the loop's TLS transport
// (CreateConnection with WithTLS).
//
// After a stall the schedule is not moved: the requests whose time has
// passed are sent at once, one per connection as each becomes free, in a
// burst as fast as the connections allow. That catch-up is what the
// corrected latency measures; it is not smoothed.
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
// TimedOut + Unsent + the other errors: Scheduled is counted as the
// requests are sent (or fail before their send) and found unsent, so the
// sum is a check. An answer that comes after the Requests limit was
// reached is counted answered too. A request that waited for a redial is
// sent once the dial is done: its timeout and uncorrected latency run
// from then (its corrected latency, from its intended time, includes the
// dial). An interrupted run leaves its requests in flight out.
// Histograms are in nanoseconds. Run's outcome is a loadresult.Result:
// each loop's, merged by loadresult.Merge.
//
// The throughput is counted apart, by arrival: Requests are the answers
// that arrived in the window, whenever their requests were scheduled, so
// under overload the achieved rate is the server's and does not depend on
// Warmup. Errors are the failures of the window's requests only. No
// request is sent after the window; one in flight when it closes gets
// until its deadline (Timeout after its send), so a stalled server ends
// the run at the window's end plus Timeout at the latest.
//
// Over time: the result's Series cuts the window into intervals of
// Config.Interval, and a request belongs to the interval in which it was
// scheduled (its intended send time; its send in closed loop), the time
// that makes it one of the window's. Each interval counts its requests
// answered and failed (timeouts included) and holds their corrected
// latencies (with the timeouts' and the unsent requests', as the run's
// histogram does), so the intervals sum to the run's Answered and Errors
// and their histograms merged hold the run's corrected histogram's
// counts. A stall shows as the latency of the intervals whose requests
// it delayed. Each loop keeps its own series, made before the run (an
// answer costs an index and one histogram record more), merged with the
// loops' results.
//
// Around the run: a run's verdict (CheckRuns, CheckSLO, WarnRun) and a
// sweep's (RunSweep judges each step by Criteria, FindKnee finds the
// knee, CheckSweep), both from typed figures and counts, never from
// printed text; a knee's fields travel typed in a sweep's benchfmt
// (Knee.Config, KneeOf). Output writes runs and sweeps as the command
// prints them (table, JSON, benchfmt), MergeSweeps merges N generators'
// sweeps step by step and WriteMergedSweep writes the merge. TLSOptions
// and HTTPOptions turn the command's flags into a Config.
package load

import (
	"crypto/tls"
	"fmt"
	"net"
	"time"

	"github.com/loopbench/loopbench/internal/measure/loadresult"
)

// Config describes a load run.
type Config struct {
	Addr string
	// Network is "tcp" (the default) or "udp": over UDP each request is a
	// datagram on a connected socket, its answer the datagram that echoes
	// it (a late answer to an earlier request is dropped).
	Network  string
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
	// Dial opens a connection; default: TCP with Timeout. It runs off the
	// loop (the loop's executor) and must return a connection with a file
	// descriptor (syscall.Conn): the generator takes a duplicate of it
	// onto its loop and closes the net.Conn. Not used with TLS.
	Dial func(addr string) (net.Conn, error) `json:"-"`
	// TLS, when set, makes the connections TLS with this client config,
	// through the loop's TLS transport; each handshake is made before the
	// connection's first request (or, after a failure, before the next).
	TLS *tls.Config `json:"-"`
	// CPUs are the generator's CPUs: one loop per CPU, its thread pinned
	// to it, the connections dealt among the loops. Empty: one loop,
	// not pinned.
	CPUs []int
	// Spin, when positive, makes a loop whose next send (in the
	// schedule, whether or not its connection is free yet) is less than
	// Spin away poll with a zero timeout until it is due instead of
	// sleeping: precise pacing for a CPU of the generator's own. The time
	// spent so is reported (loadresult.Result.Spin).
	Spin time.Duration
	// HTTP, when set, makes the requests HTTP/1.1 (see HTTP); Size is then
	// the request's length.
	HTTP *HTTP `json:"-"`
	// Interval is the length of the series' intervals (see Series): at
	// least loadresult.MinInterval, at most Duration, and at most
	// loadresult.MaxIntervals of them. 0: DefaultInterval, longer for a
	// window of more than DefaultIntervals of it, at most Duration.
	Interval time.Duration
}

// DefaultTimeout is the per-request timeout when Config.Timeout is 0.
const DefaultTimeout = 2 * time.Second

// Validate reports the first field out of range, naming its flag.
func (cfg Config) Validate() error {
	switch {
	case cfg.Conns < 1:
		return fmt.Errorf("-conns %d: want at least 1", cfg.Conns)
	case cfg.HTTP != nil && cfg.Network == "udp":
		return fmt.Errorf("-proto http goes over TCP, not -udp")
	case cfg.HTTP != nil && len(cfg.HTTP.Request) == 0:
		return fmt.Errorf("-proto http: no request to send")
	case cfg.HTTP == nil && cfg.Size < 8:
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
	case cfg.Spin < 0:
		return fmt.Errorf("-spin %v: want zero (off) or more", cfg.Spin)
	case cfg.Network != "" && cfg.Network != "tcp" && cfg.Network != "udp":
		return fmt.Errorf("network %q: want tcp or udp", cfg.Network)
	case cfg.Network == "udp" && cfg.Size > MaxDatagram:
		return fmt.Errorf("-size %d: a UDP request is one datagram, at most %d bytes", cfg.Size, MaxDatagram)
	case cfg.Network == "udp" && cfg.TLS != nil:
		return fmt.Errorf("-tls goes over TCP, not -udp")
	case cfg.Interval != 0:
		return loadresult.CheckInterval(cfg.Interval, cfg.Duration)
	}
	return nil
}

// MaxDatagram is the largest request over UDP: an IPv4 datagram's payload.
const MaxDatagram = 65507

// withDefaults fills in the Network, Timeout, Label and Dial left zero.
func (cfg Config) withDefaults() Config {
	if cfg.HTTP != nil {
		cfg.Size = len(cfg.HTTP.Request)
	}
	if cfg.Network == "" {
		cfg.Network = "tcp"
	}
	if cfg.Timeout == 0 {
		cfg.Timeout = DefaultTimeout
	}
	if cfg.Label == "" {
		cfg.Label = cfg.Addr
	}
	if cfg.Dial == nil {
		network, timeout := cfg.Network, cfg.Timeout
		cfg.Dial = func(addr string) (net.Conn, error) { return net.DialTimeout(network, addr, timeout) }
	}
	return cfg
}
