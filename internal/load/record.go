package load

import (
	"sync"
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

// recorder holds the latencies and counts of some of a run's
// connections: a run has a few, shared round robin, so that memory does
// not grow with the connections and the lock is rarely contended.
type recorder struct {
	mu                          sync.Mutex
	corrected, uncorrected, lag *hdrhistogram.Histogram
	overflow                    int64 // values beyond HistHighest, recorded as HistHighest
	arrived                     int64 // responses that arrived in the window
	answered, timedOut, unsent  int64 // of the window's requests
}

func newRecorder() *recorder {
	return &recorder{corrected: NewHistogram(), uncorrected: NewHistogram(), lag: NewHistogram()}
}

// record adds v to h; a value beyond the histogram's range is recorded
// at its top and counted. Called with mu held.
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
	r.mu.Lock()
	defer r.mu.Unlock()
	r.record(r.corrected, corrected)
	r.record(r.uncorrected, uncorrected)
	*n++
}

// unsentFrom records the window's requests a connection had not sent
// when the window closed at end: their lateness then, a lower bound of
// their latency. at gives the intended times, from the first unsent.
func (r *recorder) unsentFrom(at func(k int) time.Time, first int, measure, end time.Time) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for k := first; ; k++ {
		t := at(k)
		if !t.Before(end) {
			return
		}
		if !t.Before(measure) {
			r.record(r.corrected, end.Sub(t))
			r.unsent++
		}
	}
}

func (r *recorder) pacing(lag time.Duration) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.record(r.lag, lag)
}

func (r *recorder) arrival() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.arrived++
}

// recorders returns the recorders of a run of n connections: one per
// connection up to four per CPU the runtime uses.
func recorders(n, procs int) []*recorder {
	out := make([]*recorder, min(n, 4*max(procs, 1)))
	for i := range out {
		out[i] = newRecorder()
	}
	return out
}

// Percentiles reads the percentiles of a histogram of nanoseconds.
func Percentiles(h *hdrhistogram.Histogram) Latencies {
	if h == nil {
		return Latencies{}
	}
	at := func(q float64) time.Duration { return time.Duration(h.ValueAtQuantile(q)) }
	return Latencies{P50: at(50), P90: at(90), P99: at(99), P999: at(99.9), Max: time.Duration(h.Max())}
}
