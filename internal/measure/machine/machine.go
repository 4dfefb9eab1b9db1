// Package machine describes this machine (its host name, cores and
// memory, recorded with every run so that reports can set machines side
// by side) and samples how busy it is while something is measured: the
// load average, the CPU time other processes used, the time the
// hypervisor stole, and the frequency governor. A measurement taken
// while other work ran is noise, and a report says so only if the run
// recorded it.
package machine

import (
	"errors"
	"fmt"
	"strings"
	"time"
)

// ErrUnsupported is returned where the machine's counters cannot be read
// (not Linux).
var ErrUnsupported = errors.New("machine state is read on Linux only")

// Sample is the machine's counters at one moment.
type Sample struct {
	At    time.Time
	Load1 float64       // one-minute load average
	Busy  time.Duration // CPU time of every process, all CPUs (user, nice, system, irq)
	Steal time.Duration // CPU time the hypervisor took, all CPUs
	Total time.Duration // all CPU time, all CPUs, idle included
	Self  time.Duration // this process's and its waited-for children's CPU time
}

// Span is the machine between two samples.
type Span struct{ Start, End Sample }

// MinSpan is the shortest span whose share of CPU can be told: /proc/stat
// counts in ticks of 10 ms per CPU, so each end of a span may be a tick
// off on every CPU, and over a shorter span that error alone could pass
// BusyCores. Shorter spans are never called busy.
const MinSpan = time.Second

// Short reports whether the span is shorter than MinSpan.
func (s Span) Short() bool { return s.End.At.Sub(s.Start.At) < MinSpan }

// OthersCores is the CPU other processes used over the span, in cores; 0
// for a Short span.
func (s Span) OthersCores() float64 {
	wall := s.End.At.Sub(s.Start.At)
	if wall < MinSpan {
		return 0
	}
	others := (s.End.Busy - s.Start.Busy) - (s.End.Self - s.Start.Self)
	return max(0, others.Seconds()/wall.Seconds())
}

// StealShare is the share of all CPU time the hypervisor stole; 0 for a
// Short span.
func (s Span) StealShare() float64 {
	total := s.End.Total - s.Start.Total
	if total <= 0 || s.Short() {
		return 0
	}
	return (s.End.Steal - s.Start.Steal).Seconds() / total.Seconds()
}

// Bounds of a quiet machine: a span is busy when other processes used
// more than BusyCores, or the hypervisor stole more than BusySteal.
const (
	BusyCores = 0.2
	BusySteal = 0.02
)

// Busy reports whether the span passes the bounds.
func (s Span) Busy() bool { return s.OthersCores() > BusyCores || s.StealShare() > BusySteal }

// String is the span as a run records it.
func (s Span) String() string {
	if s.Short() {
		return fmt.Sprintf("load %.2f-%.2f (%v: too short to tell others' CPU)", s.Start.Load1, s.End.Load1, s.End.At.Sub(s.Start.At).Round(time.Millisecond))
	}
	return fmt.Sprintf("load %.2f-%.2f others %.2f cores steal %.1f%%", s.Start.Load1, s.End.Load1, s.OthersCores(), 100*s.StealShare())
}

// Config is what a run records of its rounds' spans, as configuration
// lines: machine-rounds (every span), machine-busy (yes or no, with the
// bounds) and machine-governor where it can be read.
func Config(spans []Span) [][2]string {
	var rounds, busy []string
	worst := 0.0
	for i, s := range spans {
		rounds = append(rounds, fmt.Sprintf("r%d %s", i+1, s))
		if s.Busy() {
			busy = append(busy, fmt.Sprint(i+1))
		}
		worst = max(worst, s.OthersCores())
	}
	verdict := fmt.Sprintf("no (other processes at most %.2f cores, bound %.2f; steal bound %.0f%%)", worst, BusyCores, 100*BusySteal)
	if busy != nil {
		verdict = fmt.Sprintf("yes (rounds %s past %.2f cores of other processes or %.0f%% steal; at most %.2f cores)", strings.Join(busy, ","), BusyCores, 100*BusySteal, worst)
	}
	out := [][2]string{{"machine-busy", verdict}, {"machine-rounds", strings.Join(rounds, "; ")}}
	if g := Governor(); g != "" {
		out = append(out, [2]string{"machine-governor", g})
	}
	return out
}

// WaitIdle samples the machine over every interval until other processes
// use at most BusyCores, for at most limit; it returns the last span and
// whether the machine was idle. sample and sleep are Read and time.Sleep
// outside tests.
func WaitIdle(limit, interval time.Duration, sample func() (Sample, error), sleep func(time.Duration)) (Span, bool, error) {
	var waited time.Duration
	for {
		a, err := sample()
		if err != nil {
			return Span{}, false, err
		}
		sleep(interval)
		b, err := sample()
		if err != nil {
			return Span{}, false, err
		}
		s := Span{a, b}
		waited += interval
		if !s.Busy() {
			return s, true, nil
		}
		if waited >= limit {
			return s, false, nil
		}
	}
}
