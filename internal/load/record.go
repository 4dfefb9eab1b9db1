package load

import (
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"
)

// Histogram bounds: latencies in nanoseconds, 1 ns to 60 s, three
// significant digits. Histograms merged with a run's must have them.
const (
	HistLowest  = 1
	HistHighest = int64(60 * time.Second)
	HistDigits  = 3
)

// NewHistogram returns a latency histogram as the runs record them: in
// ns, 1 ns to 60 s, 3 significant digits (about 220 KB).
func NewHistogram() *hdrhistogram.Histogram {
	return hdrhistogram.New(HistLowest, HistHighest, HistDigits)
}

// recorder holds the latencies and counts of one loop's connections:
// a run has one per loop (per generator CPU), owned by the loop's
// thread, so it needs no lock and its memory does not grow with the
// connections.
type recorder struct {
	corrected, uncorrected, lag, recvLag *hdrhistogram.Histogram
	overflow                             int64 // values beyond HistHighest, recorded as HistHighest
	arrived                              int64 // responses that arrived in the window
	// scheduled counts the window's requests as they begin (sent, or
	// failed before their send) and as they are found unsent; each ends
	// answered, timed out, failed, or unsent.
	scheduled                  int64
	answered, timedOut, unsent int64 // of the window's requests
	spin                       time.Duration
}

func newRecorder() *recorder {
	return &recorder{corrected: NewHistogram(), uncorrected: NewHistogram(), lag: NewHistogram(), recvLag: NewHistogram()}
}

// record adds v to h; a value beyond the histogram's range is recorded
// at its top and counted.
func (r *recorder) record(h *hdrhistogram.Histogram, v time.Duration) {
	if v < 0 {
		v = 0
	}
	if int64(v) > HistHighest {
		r.overflow++
		v = time.Duration(HistHighest)
	}
	h.RecordValue(int64(v))
}

// answer records a response to one of the window's requests.
func (r *recorder) answer(corrected, uncorrected time.Duration) {
	r.finish(corrected, uncorrected, &r.answered)
}

// timeout records one of the window's requests that timed out: its
// latencies so far, at least the timeout, are lower bounds of its own.
func (r *recorder) timeout(corrected, uncorrected time.Duration) {
	r.finish(corrected, uncorrected, &r.timedOut)
}

// finish records a request's latencies and counts it in n.
func (r *recorder) finish(corrected, uncorrected time.Duration, n *int64) {
	r.record(r.corrected, corrected)
	r.record(r.uncorrected, uncorrected)
	*n++
}

// unsentFrom records the window's requests a connection had not sent
// when the window closed at end: their lateness then, a lower bound of
// their latency. at gives the intended times (as offsets from the run's
// start), from the first unsent.
func (r *recorder) unsentFrom(at func(k int) time.Duration, first int, measure, end time.Duration) {
	for k := first; ; k++ {
		t := at(k)
		if t >= end {
			return
		}
		if t >= measure {
			r.record(r.corrected, end-t)
			r.unsent++
			r.scheduled++
		}
	}
}

func (r *recorder) pacing(lag time.Duration) { r.record(r.lag, lag) }

// merge adds o's latencies and counts to r.
func (r *recorder) merge(o *recorder) {
	r.corrected.Merge(o.corrected)
	r.uncorrected.Merge(o.uncorrected)
	r.lag.Merge(o.lag)
	r.recvLag.Merge(o.recvLag)
	r.overflow += o.overflow
	r.arrived += o.arrived
	r.scheduled += o.scheduled
	r.answered += o.answered
	r.timedOut += o.timedOut
	r.unsent += o.unsent
	r.spin += o.spin
}

// Percentiles reads the percentiles of a histogram of nanoseconds.
func Percentiles(h *hdrhistogram.Histogram) Latencies {
	if h == nil {
		return Latencies{}
	}
	at := func(q float64) time.Duration { return time.Duration(h.ValueAtQuantile(q)) }
	return Latencies{P50: at(50), P90: at(90), P99: at(99), P999: at(99.9), Max: time.Duration(h.Max())}
}
