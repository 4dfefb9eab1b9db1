package runner

import (
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/loopbench/loopbench/bench"
	"github.com/loopbench/loopbench/internal/measure/loadresult"
)

// HeartbeatEvery is how often a run or a gate says how far it is when its
// stderr is not a terminal (a CI log), where no line is rewritten in
// place: a job silent for minutes looks hung.
const HeartbeatEvery = 30 * time.Second

// Heartbeat writes line(t) to w at each tick t until stop is called; stop
// returns once the last line is written.
func Heartbeat(w io.Writer, ticks <-chan time.Time, line func(time.Time) string) (stop func()) {
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

// Progress tells how far a run is: on a terminal a line rewritten in place
// at each measurement; elsewhere a line at each tick of a heartbeat, once
// Start is called. Both say what is done and left, the time elapsed and,
// once a measurement has completed, the time left as the estimator has
// it.
type Progress struct {
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

// NewProgress is the progress of a run of count rounds over cases cases,
// written to w (serialized when others write to it too), rewritten in
// place when term says w is a terminal, and timed by now.
func NewProgress(w io.Writer, term bool, cases, count int, now func() time.Time) *Progress {
	return &Progress{w: w, term: term, now: now, begun: now(), cur: -1, total: cases * count, est: newEstimator(cases, count)}
}

// Start starts the heartbeat off a terminal, on ticks; stopTicks stops
// them when Done is called.
func (p *Progress) Start(ticks <-chan time.Time, stopTicks func()) {
	if p.term {
		return
	}
	stop := Heartbeat(p.w, ticks, p.line)
	p.stop = func() { stop(); stopTicks() }
}

// step notes the start of a measurement of case ci, c.
func (p *Progress) step(round, ci int, c bench.Case) {
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
func (p *Progress) measured() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.cur >= 0 {
		p.est.add(p.cur, p.now().Sub(p.started))
		p.cur = -1
	}
}

// line is the heartbeat's line at t.
func (p *Progress) line(t time.Time) string {
	p.mu.Lock()
	defer p.mu.Unlock()
	done := p.n
	if p.cur >= 0 {
		done-- // started, not finished
	}
	msg := fmt.Sprintf("loopbench run: %d of %s done, %d left, %v elapsed", done, loadresult.Plural(p.total, "measurement"), p.total-done, t.Sub(p.begun).Round(time.Second))
	if p.cur >= 0 {
		msg += "; measuring " + p.label
	}
	return msg + p.left(t)
}

// left is the estimate of the time left, "" before any measurement ends.
func (p *Progress) left(t time.Time) string {
	d, ok := p.est.remaining()
	if !ok {
		return ""
	}
	if p.cur >= 0 { // the current measurement is counted whole: take off what it has run
		d = max(d-t.Sub(p.started), 0)
	}
	return fmt.Sprintf("; about %v left", roundEstimate(d))
}

// Done clears the terminal line, or stops the heartbeat.
func (p *Progress) Done() {
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
