package runner

import "time"

// estimator predicts the time a run has left from what its measurements
// took: each case's measurement costs what its completed ones cost on
// average (its setup, the calibration of b.N and the timed loops, all
// measured), and a case not measured yet what the measured ones cost on
// average. Every round measures every case, so after the first round the
// estimate rests on each case's own cost, and it follows the machine as
// the run goes.
type estimator struct {
	left  []int           // measurements left, per case
	spent []time.Duration // time its completed measurements took, per case
	runs  []int           // its completed measurements, per case
}

func newEstimator(cases, count int) *estimator {
	e := &estimator{left: make([]int, cases), spent: make([]time.Duration, cases), runs: make([]int, cases)}
	for i := range e.left {
		e.left[i] = count
	}
	return e
}

// add records a completed measurement of case c that took d.
func (e *estimator) add(c int, d time.Duration) {
	e.left[c] = max(e.left[c]-1, 0)
	e.spent[c] += d
	e.runs[c]++
}

// remaining is the estimated time left; false before any measurement
// completed.
func (e *estimator) remaining() (time.Duration, bool) {
	var spent time.Duration
	runs := 0
	for c := range e.runs {
		spent, runs = spent+e.spent[c], runs+e.runs[c]
	}
	if runs == 0 {
		return 0, false
	}
	var left time.Duration
	for c, n := range e.left {
		per := spent / time.Duration(runs)
		if e.runs[c] > 0 {
			per = e.spent[c] / time.Duration(e.runs[c])
		}
		left += time.Duration(n) * per
	}
	return left, true
}
