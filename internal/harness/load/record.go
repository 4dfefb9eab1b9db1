package load

import (
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"
	"github.com/loopbench/loopbench/internal/measure/loadresult"
)

// recorder holds the latencies and counts of one loop's connections:
// a run has one per loop (per generator CPU), owned by the loop's
// thread, so it needs no lock and its memory does not grow with the
// connections.
type recorder struct {
	corrected, uncorrected, lag, recvLag *hdrhistogram.Histogram
	overflow                             int64 // values beyond loadresult.HistHighest, recorded as loadresult.HistHighest
	arrived                              int64 // responses that arrived in the window
	// scheduled counts the window's requests as they begin (sent, or
	// failed before their send) and as they are found unsent; each ends
	// answered, timed out, failed, or unsent.
	scheduled                  int64
	answered, timedOut, unsent int64 // of the window's requests
	spin                       time.Duration
	series                     series // the window interval by interval; empty until newWorker sets it
}

func newRecorder() *recorder {
	return &recorder{corrected: loadresult.NewHistogram(), uncorrected: loadresult.NewHistogram(), lag: loadresult.NewHistogram(), recvLag: loadresult.NewHistogram()}
}

// record adds v to h; a value beyond the histogram's range is recorded
// at its top and counted. It returns the value recorded.
func (r *recorder) record(h *hdrhistogram.Histogram, v time.Duration) int64 {
	if v < 0 {
		v = 0
	}
	if int64(v) > loadresult.HistHighest {
		r.overflow++
		v = time.Duration(loadresult.HistHighest)
	}
	h.RecordValue(int64(v))
	return int64(v)
}

// answer records a response to one of the window's requests, intended
// at at (time since the start).
func (r *recorder) answer(at, corrected, uncorrected time.Duration) {
	r.finish(at, corrected, uncorrected, &r.answered)
}

// timeout records one of the window's requests that timed out: its
// latencies so far, at least the timeout, are lower bounds of its own.
func (r *recorder) timeout(at, corrected, uncorrected time.Duration) {
	r.finish(at, corrected, uncorrected, &r.timedOut)
}

// finish records the latencies of a request intended at at, in the
// run's histograms and its interval's, and counts it in n.
func (r *recorder) finish(at, corrected, uncorrected time.Duration, n *int64) {
	r.series.latency(at, r.record(r.corrected, corrected), n == &r.answered)
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
			r.series.latency(t, r.record(r.corrected, end-t), false)
			r.unsent++
			r.scheduled++
		}
	}
}

func (r *recorder) pacing(lag time.Duration) { r.record(r.lag, lag) }

// result is the loop's part of a run: its counts, errors and
// histograms, which loadresult.Merge adds up with the other loops'.
func (r *recorder) result(errs *errorLog) loadresult.Result {
	part := loadresult.Result{Requests: r.arrived, Scheduled: r.scheduled, Answered: r.answered, TimedOut: r.timedOut,
		Unsent: r.unsent, Overflow: r.overflow, Spin: r.spin, Gone: errs.gone, Expired: errs.expired, Mismatched: errs.mismatched,
		CorrectedHist: r.corrected, UncorrectedHist: r.uncorrected, PacingLagHist: r.lag, ReceiveLagHist: r.recvLag,
		Series: r.series.result()}
	part.Errors, part.ErrorTexts = errs.counts()
	return part
}
