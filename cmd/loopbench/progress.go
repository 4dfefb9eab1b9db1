package main

import (
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"github.com/loopbench/loopbench/bench"
)

// heartbeatEvery is how often a run or a gate says how far it is when its
// stderr is not a terminal (a CI log), where no line is rewritten in
// place: a job silent for minutes looks hung.
const heartbeatEvery = 30 * time.Second

// newTicks starts the clock of the heartbeat lines; tests give their own
// channel instead.
var newTicks = func() (<-chan time.Time, func()) {
	t := time.NewTicker(heartbeatEvery)
	return t.C, t.Stop
}

// isTerminal reports whether w, or the writer a lockedWriter serializes,
// is a terminal.
func isTerminal(w io.Writer) bool {
	if l, ok := w.(*lockedWriter); ok {
		w = l.w
	}
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// heartbeat writes line(t) to w at each tick t until stop is called; stop
// returns once the last line is written.
func heartbeat(w io.Writer, ticks <-chan time.Time, line func(time.Time) string) (stop func()) {
	quit, exited := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(exited)
		for {
			select {
			case t := <-ticks:
				fmt.Fprintln(w, line(t))
			case <-quit:
				return
			}
		}
	}()
	var once sync.Once
	return func() { once.Do(func() { close(quit); <-exited }) }
}

// progress tells how far a run is: on a terminal a line rewritten in place
// at each measurement; elsewhere a line every heartbeatEvery, once start
// is called. Both say what is done and left, the time elapsed and, once a
// measurement has completed, the time left as the estimator has it.
type progress struct {
	mu      sync.Mutex
	w       io.Writer
	term    bool
	now     func() time.Time
	begun   time.Time // the run's start
	started time.Time // the current measurement's
	cur     int       // the current measurement's case, -1 between them
	label   string    // its round and name
	n       int       // measurements started
	total   int
	est     *estimator
	stop    func()
}

// newProgress is the progress of a run of count rounds over cases cases,
// written to w (a lockedWriter when others write to it too) and timed by
// now.
func newProgress(w io.Writer, cases, count int, now func() time.Time) *progress {
	return &progress{w: w, term: isTerminal(w), now: now, begun: now(), cur: -1, total: cases * count, est: newEstimator(cases, count)}
}

// start starts the heartbeat off a terminal, on ticks; done stops it.
func (p *progress) start(ticks <-chan time.Time, stopTicks func()) {
	if p.term {
		return
	}
	stop := heartbeat(p.w, ticks, p.line)
	p.stop = func() { stop(); stopTicks() }
}

// step notes the start of a measurement of case ci, c.
func (p *progress) step(round, ci int, c bench.Case) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.n++
	p.cur, p.started = ci, p.now()
	p.label = fmt.Sprintf("round %d: %s/%s", round+1, c.Workload, c.Name())
	if p.term {
		fmt.Fprintf(p.w, "\r\033[K[%d/%d] %s%s", p.n, p.total, p.label, p.left(p.started))
	}
}

// measured notes the end of the current measurement: the time since its
// step, setup, calibration and timed loops together, goes to the
// estimator.
func (p *progress) measured() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.cur >= 0 {
		p.est.add(p.cur, p.now().Sub(p.started))
		p.cur = -1
	}
}

// line is the heartbeat's line at t.
func (p *progress) line(t time.Time) string {
	p.mu.Lock()
	defer p.mu.Unlock()
	done := p.n
	if p.cur >= 0 {
		done-- // started, not finished
	}
	msg := fmt.Sprintf("loopbench run: %d of %s done, %d left, %v elapsed", done, plural(p.total, "measurement"), p.total-done, t.Sub(p.begun).Round(time.Second))
	if p.cur >= 0 {
		msg += "; measuring " + p.label
	}
	return msg + p.left(t)
}

// left is the estimate of the time left, "" before any measurement ends.
func (p *progress) left(t time.Time) string {
	d, ok := p.est.remaining()
	if !ok {
		return ""
	}
	if p.cur >= 0 { // the current measurement is counted whole: take off what it has run
		d = max(d-t.Sub(p.started), 0)
	}
	return fmt.Sprintf("; about %v left", roundEstimate(d))
}

// done clears the terminal line, or stops the heartbeat.
func (p *progress) done() {
	if p.stop != nil {
		p.stop()
	}
	if p.term {
		fmt.Fprint(p.w, "\r\033[K")
	}
}

// roundEstimate rounds an estimate to what it can claim: seconds under a
// minute, ten seconds under ten minutes, minutes beyond.
func roundEstimate(d time.Duration) time.Duration {
	switch {
	case d < time.Minute:
		return d.Round(time.Second)
	case d < 10*time.Minute:
		return d.Round(10 * time.Second)
	}
	return d.Round(time.Minute)
}

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
