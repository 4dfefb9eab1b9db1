package loadresult

import (
	"fmt"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"
)

// Series is a run over time: its measured window cut into intervals of
// Interval from WindowStart (the last one shorter when Interval does not
// divide Window), and for each, a Point.
//
// A request belongs to the interval in which it was scheduled: its
// intended send time in open loop, its send in closed loop, the same time
// that makes it one of the window's requests. So the series adds up to
// the run exactly: its Answered and Errors sum to the run's, and its
// histograms hold the same records as the run's corrected histogram
// (answers, timeouts at their lower bound, unsent requests at their
// lateness), at SeriesDigits. A server stall shows as the latency of the
// intervals whose requests it delayed, and the throughput of an interval
// is its requests answered over its length, whenever the answers came.
type Series struct {
	Interval time.Duration
	Window   time.Duration // the window the intervals cover
	Points   []Point
}

// Point is one interval of a Series.
type Point struct {
	Answered int64 // the interval's requests answered
	Errors   int64 // the interval's requests that failed, timeouts included
	// Hist is the corrected latency (ns, SeriesDigits) of the interval's
	// requests; nil when none was recorded.
	Hist *hdrhistogram.Histogram
}

// Limits of a series: its interval and number of intervals.
const (
	MinInterval  = 10 * time.Millisecond
	MaxIntervals = 3600
	// SeriesDigits are the significant digits of an interval's histogram:
	// two, so that an interval costs about 30 KB rather than a run
	// histogram's 220 KB.
	SeriesDigits = 2
)

// NewSeriesHistogram returns an interval's latency histogram: in ns, the
// bounds of NewHistogram, SeriesDigits significant digits.
func NewSeriesHistogram() *hdrhistogram.Histogram {
	return hdrhistogram.New(HistLowest, HistHighest, SeriesDigits)
}

// Intervals is the number of intervals of interval in window, the last
// one partial.
func Intervals(window, interval time.Duration) int {
	if interval <= 0 || window <= 0 {
		return 0
	}
	return int((window + interval - 1) / interval)
}

// CheckInterval says what is wrong with an interval over a window of
// window, naming the flag: below MinInterval, longer than the window, or
// more than MaxIntervals in it.
func CheckInterval(interval, window time.Duration) error {
	switch n := Intervals(window, interval); {
	case interval < MinInterval:
		return fmt.Errorf("-interval %v: want at least %v", interval, MinInterval)
	case interval > window:
		return fmt.Errorf("-interval %v: want at most the -duration, %v", interval, window)
	case n > MaxIntervals:
		return fmt.Errorf("-interval %v: %d intervals in -duration %v, want at most %d (a longer -interval)", interval, n, window, MaxIntervals)
	}
	return nil
}

// Length is the length of interval i: Interval, less for the last one
// when Interval does not divide Window.
func (s *Series) Length(i int) time.Duration {
	return min(s.Interval, s.Window-time.Duration(i)*s.Interval)
}

// Start is the offset of interval i from the window's start.
func (s *Series) Start(i int) time.Duration { return time.Duration(i) * s.Interval }

// Throughput is interval i's answered requests per second.
func (s *Series) Throughput(i int) float64 {
	l := s.Length(i)
	if l <= 0 {
		return 0
	}
	return float64(s.Points[i].Answered) / l.Seconds()
}

// Latencies are interval i's corrected latency Percentiles.
func (s *Series) Latencies(i int) Latencies { return LatenciesOf(s.Points[i].Hist) }

// Totals are the series' answered requests, errors and recorded
// latencies, summed over its intervals.
func (s *Series) Totals() (answered, errors, recorded int64) {
	for _, p := range s.Points {
		answered += p.Answered
		errors += p.Errors
		if p.Hist != nil {
			recorded += p.Hist.TotalCount()
		}
	}
	return answered, errors, recorded
}

// alignment is the most two series' starts may differ by and still be
// merged interval by interval: a tenth of their interval.
func alignment(interval time.Duration) time.Duration { return interval / 10 }

// seriesOf merges the parts' series interval by interval, or says in one
// line why it cannot: a part has none, or their intervals or windows
// differ, or their windows start more than a tenth of an interval apart.
func seriesOf(parts []Result) (*Series, string) {
	first := parts[0]
	for _, p := range parts {
		switch {
		case p.Series == nil:
			return nil, fmt.Sprintf("%s has no per-interval series (written before load kept one)", partName(p))
		case p.Series.Interval != first.Series.Interval || p.Series.Window != first.Series.Window || len(p.Series.Points) != len(first.Series.Points):
			return nil, fmt.Sprintf("%s has %d intervals of %v over %v, %s %d of %v over %v", partName(p), len(p.Series.Points), p.Series.Interval,
				p.Series.Window, partName(first), len(first.Series.Points), first.Series.Interval, first.Series.Window)
		case absDuration(p.WindowStart.Sub(first.WindowStart)) > alignment(first.Series.Interval):
			return nil, fmt.Sprintf("the windows of %s and %s start %v apart, more than a tenth of the %v interval (start them with -start-at)",
				partName(p), partName(first), absDuration(p.WindowStart.Sub(first.WindowStart)), first.Series.Interval)
		}
	}
	m := &Series{Interval: first.Series.Interval, Window: first.Series.Window, Points: make([]Point, len(first.Series.Points))}
	for _, p := range parts {
		for i, pt := range p.Series.Points {
			m.Points[i].Answered += pt.Answered
			m.Points[i].Errors += pt.Errors
			if pt.Hist == nil {
				continue
			}
			if m.Points[i].Hist == nil {
				m.Points[i].Hist = NewSeriesHistogram()
			}
			m.Points[i].Hist.Merge(pt.Hist)
		}
	}
	return m, ""
}

func partName(r Result) string {
	if r.Name == "" {
		return "a result"
	}
	return r.Name
}

func absDuration(d time.Duration) time.Duration {
	if d < 0 {
		return -d
	}
	return d
}
