// Package loadresult is the result of a `loopbench load` run: one type,
// Result, for a run of one generator loop, of a whole generator (its
// loops merged), of a sweep step, and of N generators merged (`loopbench
// merge`), with the encoders beside it: the text table
// (Result.WriteText), JSON (Result.JSON, every duration in ns), the
// one-line file `load -out` writes and `merge` reads (Write, Read), and
// benchmark values in ns (Result.Values, Units). Percentiles is the one
// list of percentiles they all report. A Series is the run over time,
// interval by interval: each request counts in the interval in which it
// was scheduled (its intended send time; its send in closed loop), so
// the intervals add up to the run's answered requests, errors and
// corrected histogram exactly, and Read rejects a series that does not.
//
// Merge is the one merging of results, on Result: counts and rates
// summed, latency histograms merged (never an average of percentiles),
// CPU summed over the real wall time. MergeGenerators merges N
// generators' results and says what makes the sum doubtful or
// meaningless.
//
// A result file line is JSON whose first key is "format": a file may
// hold other lines around it (a pod's log, with the generator's table),
// and Read finds the result lines among them. The latency histograms are
// in nanoseconds, in HdrHistogram's compressed encoding (hdrhistogram-go's
// Encode, V2 cookie, base64), which other HdrHistogram tools read. Files
// come from other hosts: Read checks what it decodes and turns corrupt or
// hostile input into an error naming the file and line, never a panic or
// an allocation its input sizes.
//
// The command's forms of results live here too: a table per run and the
// runs' spread (WriteTables), benchmark names and configuration
// (BenchName, MergeName, ConfigOf), a merge's table, JSON and benchfmt
// (WriteMergedTable, MergeJSON, WriteMergedBenchfmt), its files (WriteMergedFiles), and load -out's file,
// renamed into place only once complete (CreateOut).
package loadresult

import (
	"fmt"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"
)

// Result is the outcome of a load run. Its counts keep the identity
// Scheduled = Answered + TimedOut + Unsent + (Errors - TimedOut): every
// request of the window is answered, times out (an error too), fails
// otherwise, or is still unsent when the window closes (Balanced).
type Result struct {
	// Name is the generator (load -name; default the host name), "" in
	// a run not written to a file.
	Name  string
	Label string // the run's label; default the address
	Addr  string
	Conns int // the connections of the run
	Size  int // message size in bytes
	// CPUs are the generator's usable CPUs (its affinity set), 0 when
	// unknown; Loops are its event loops (one per -cpu, at most one per
	// connection), 0 when unknown; PacingMethod names how it waits for a
	// send time.
	CPUs, Loops  int
	PacingMethod string
	// Proto is what the run spoke: "" for loopbench's echo protocol,
	// "http" for HTTP/1.1.
	Proto string
	// Step is the index of the step in a sweep, nil for a single run;
	// SLO and MaxErrors are the sweep's criteria.
	Step      *int
	SLO       time.Duration
	MaxErrors float64

	// WindowStart and WindowEnd are the measured window in wall-clock
	// time. Elapsed is the part of it the run covered: Duration (the
	// window asked for), or less when it was interrupted or stopped at
	// its request limit.
	WindowStart, WindowEnd time.Time
	Elapsed, Duration      time.Duration
	Interrupted            bool // stopped before the window closed

	Offered  float64 // scheduled req/s (0 in closed loop)
	Achieved float64 // Requests per second of window
	// Behind is set when the achieved rate is below load.MinAchieved of
	// the offered: the same threshold as a sweep step's.
	Behind bool

	Requests int64 // answers that arrived in the window
	// Scheduled are the window's requests (sent, in closed loop); each is
	// Answered, TimedOut, failed otherwise, or Unsent.
	Scheduled, Answered, TimedOut, Unsent int64
	Errors                                int64 // the window's requests that failed (timeouts included)
	// ErrorTexts groups the errors by text, most frequent first.
	ErrorTexts []ErrorCount
	// Gone counts the errors that say the server went away: connections
	// refused, reset or closed by it (ServerWentAway).
	Gone int64
	// Expired counts the errors that are a deadline passing (a request's
	// timeout, a dial's): with no answer at all, the server never echoed.
	Expired int64
	// Mismatched counts the errors that are an answer other than the echo
	// of its request: the server does not speak the echo protocol.
	Mismatched int64
	// Overflow counts latencies beyond the histograms' 60 s, recorded as 60 s.
	Overflow int64

	// The latency histograms, in ns: corrected (from the intended send
	// time), uncorrected (from the actual send; unsent requests have
	// none), the pacing lag (how late the generator sent a request it
	// was free to send: its own timer and scheduling delay, which the
	// corrected latencies include) and the receive lag (from an answer's
	// arrival at the socket, the kernel's receive timestamp, to the
	// generator's reading it: Linux, plain TCP only, empty elsewhere).
	CorrectedHist, UncorrectedHist, PacingLagHist, ReceiveLagHist *hdrhistogram.Histogram
	// Their Percentiles (Summarize), and the mean uncorrected latency.
	Corrected, Uncorrected, PacingLag, ReceiveLag Latencies
	UncorrectedMean                               time.Duration

	// CPU is the generator's user+system time from the window's start to
	// the run's end (the warmup left out, as its answers are), Wall that
	// time: CPU/Wall is the cores it kept busy. Spin is the
	// time its loops spent polling for a close send time with nothing
	// else to do (no send, read or timeout since the last poll), summed
	// over the loops: CPU spent by choice, which SpinFreeCores leaves out.
	CPU, Wall, Spin time.Duration

	// Series is the run over time, interval by interval (see Series);
	// nil in a result written before load kept one, or merged from parts
	// whose series do not line up.
	Series *Series
}

// ErrorCount is one kind of error and how often it happened.
type ErrorCount struct {
	Text  string `json:"text"`
	Count int64  `json:"count"`
}

// CPUBound is the share of the CPUs its loops can use (LoopCPUs) past
// which a generator counts as measuring itself.
const CPUBound = 0.9

// MaxSteps bounds the steps of a sweep.
const MaxSteps = 200

// Summarize fills in the percentiles and the mean from the histograms.
func (r *Result) Summarize() {
	r.Corrected, r.Uncorrected = LatenciesOf(r.CorrectedHist), LatenciesOf(r.UncorrectedHist)
	r.PacingLag, r.ReceiveLag = LatenciesOf(r.PacingLagHist), LatenciesOf(r.ReceiveLagHist)
	r.UncorrectedMean = 0
	if r.UncorrectedHist != nil {
		r.UncorrectedMean = time.Duration(r.UncorrectedHist.Mean())
	}
}

// Balanced reports whether the counts keep the identity Scheduled =
// Answered + TimedOut + Unsent + the other errors.
func (r Result) Balanced() bool {
	return r.Scheduled == r.Answered+r.TimedOut+r.Unsent+(r.Errors-r.TimedOut)
}

// AsStep marks r as step i of a sweep judged by slo and maxErrors.
func (r Result) AsStep(i int, slo time.Duration, maxErrors float64) Result {
	r.Step, r.SLO, r.MaxErrors = &i, slo, maxErrors
	return r
}

// Cores is the CPU the generator kept busy, in cores.
func (r Result) Cores() float64 {
	if r.Wall <= 0 {
		return 0
	}
	return r.CPU.Seconds() / r.Wall.Seconds()
}

// SpinFreeCores is Cores without the time spent spinning.
func (r Result) SpinFreeCores() float64 {
	if r.Wall <= 0 {
		return 0
	}
	return max(r.CPU-r.Spin, 0).Seconds() / r.Wall.Seconds()
}

// LoopCPUs are the CPUs the generator's loops can use: each loop runs on
// one thread, so no more than the loops, and no more than the usable
// CPUs. 0 when the CPUs are unknown; the CPUs when the loops are (a
// result written before they were counted).
func (r Result) LoopCPUs() int {
	if r.Loops > 0 {
		return min(r.Loops, r.CPUs)
	}
	return r.CPUs
}

// CPUBound reports whether the generator kept the CPUs its loops can use
// busy (LoopCPUs, spinning left out): it measured itself.
func (r Result) CPUBound() bool {
	n := r.LoopCPUs()
	return n > 0 && r.SpinFreeCores() >= CPUBound*float64(n)
}

// CPUBusy says how busy the generator kept the CPUs its loops can use,
// spinning left out: "kept 0.95 cores busy of the 1 CPU its 1 loop can
// use (2 usable)".
func (r Result) CPUBusy() string {
	s := fmt.Sprintf("kept %.2f cores busy of the %s", r.SpinFreeCores(), Plural(r.LoopCPUs(), "CPU"))
	if r.Loops > 0 {
		s += fmt.Sprintf(" its %s can use (%d usable)", Plural(r.Loops, "loop"), r.CPUs)
	}
	return s
}

// CPUPerRequest is the generator's CPU per answered request, spinning
// left out; 0 when none was answered.
func (r Result) CPUPerRequest() time.Duration {
	if r.Answered <= 0 {
		return 0
	}
	return max(r.CPU-r.Spin, 0) / time.Duration(r.Answered)
}

// Concurrency is the connections the answered requests kept busy on
// average, by Little's law: the achieved rate times the mean uncorrected
// latency. Close to Conns, the connections limited the rate.
func (r Result) Concurrency() float64 { return r.Achieved * r.UncorrectedMean.Seconds() }

// ServerWentAway says, when most of the errors are connections refused,
// reset or closed by the server (Gone), that the server went away: its
// figures describe a server that stopped answering, not one that
// saturated. "" otherwise.
func (r Result) ServerWentAway() string {
	if r.Errors == 0 || 2*r.Gone <= r.Errors {
		return ""
	}
	return fmt.Sprintf("the server went away (%d of %d errors are connections refused, reset or closed by it)", r.Gone, r.Errors)
}

// ErrorRate is the share of the window's requests that failed.
func (r Result) ErrorRate() float64 {
	if r.Scheduled > 0 {
		return float64(r.Errors) / float64(r.Scheduled)
	}
	return 0
}
