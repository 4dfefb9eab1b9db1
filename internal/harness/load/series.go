package load

import (
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"
	"github.com/loopbench/loopbench/internal/measure/loadresult"
)

// DefaultInterval is the series' interval when Config.Interval is 0, for
// a window of up to DefaultIntervals of it.
const DefaultInterval = time.Second

// DefaultIntervals bounds the intervals of a series by default: each
// costs a loop about 30 KB (loadresult.SeriesDigits), so a long run gets
// longer intervals unless asked for more (up to loadresult.MaxIntervals).
const DefaultIntervals = 600

// seriesInterval is the interval of a run's series: Config.Interval, or
// by default DefaultInterval, longer when the window holds more than
// DefaultIntervals of it, at most the window.
func seriesInterval(cfg Config) time.Duration {
	if cfg.Interval > 0 {
		return cfg.Interval
	}
	d := cfg.Duration
	per := (d + DefaultIntervals - 1) / DefaultIntervals
	return min(max(DefaultInterval, per), d)
}

// series is one loop's part of the run's series (loadresult.Series):
// the window cut into intervals from its start, and for each the
// answered requests, the errors and the corrected latencies of the
// requests scheduled in it (at their intended send time, their send in
// closed loop). Each is made before the run, so recording costs an index
// and a histogram record, no allocation.
type series struct {
	measure, interval, window time.Duration
	answered, errors          []int64
	hists                     []*hdrhistogram.Histogram
}

// newSeries cuts the window [measure, measure+window) into intervals.
func newSeries(measure, window, interval time.Duration) series {
	n := loadresult.Intervals(window, interval)
	s := series{measure: measure, interval: interval, window: window,
		answered: make([]int64, n), errors: make([]int64, n), hists: make([]*hdrhistogram.Histogram, n)}
	for i := range s.hists {
		s.hists[i] = loadresult.NewSeriesHistogram()
	}
	return s
}

// index is the interval of a request intended at t (time since the
// run's start), one of the window's.
func (s *series) index(t time.Duration) int {
	return min(max(int((t-s.measure)/s.interval), 0), len(s.hists)-1)
}

// latency records the corrected latency v, already bounded, of a
// request intended at t; answered counts it as an answer.
func (s *series) latency(t time.Duration, v int64, answered bool) {
	if len(s.hists) == 0 {
		return
	}
	i := s.index(t)
	s.hists[i].RecordValue(v)
	if answered {
		s.answered[i]++
	}
}

// failed counts the error of a request intended at t.
func (s *series) failed(t time.Duration) {
	if len(s.hists) == 0 {
		return
	}
	s.errors[s.index(t)]++
}

// result is the loop's series, its empty intervals without a histogram.
func (s *series) result() *loadresult.Series {
	if len(s.hists) == 0 {
		return nil
	}
	out := &loadresult.Series{Interval: s.interval, Window: s.window, Points: make([]loadresult.Point, len(s.hists))}
	for i, h := range s.hists {
		out.Points[i] = loadresult.Point{Answered: s.answered[i], Errors: s.errors[i]}
		if h.TotalCount() > 0 {
			out.Points[i].Hist = h
		}
	}
	return out
}
