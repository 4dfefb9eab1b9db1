package loadresult

import (
	"fmt"
	"time"
)

// seriesLine is a Series in a result line: durations in ns, each
// interval's histogram encoded as the run's are ("" when empty).
type seriesLine struct {
	IntervalNS int64       `json:"interval_ns"`
	WindowNS   int64       `json:"window_ns"`
	Points     []pointLine `json:"intervals"`
}

type pointLine struct {
	Answered    int64  `json:"answered"`
	Errors      int64  `json:"errors"`
	CorrectedNS string `json:"corrected_hist_ns,omitempty"`
}

// encodeSeries is s as a result line holds it; nil for none.
func encodeSeries(s *Series) (*seriesLine, error) {
	if s == nil {
		return nil, nil
	}
	l := &seriesLine{IntervalNS: int64(s.Interval), WindowNS: int64(s.Window), Points: make([]pointLine, len(s.Points))}
	for i, p := range s.Points {
		l.Points[i] = pointLine{Answered: p.Answered, Errors: p.Errors}
		if p.Hist == nil || p.Hist.TotalCount() == 0 {
			continue
		}
		h, err := encodeHist(p.Hist)
		if err != nil {
			return nil, fmt.Errorf("loadresult: encoding interval %d's histogram: %w", i, err)
		}
		l.Points[i].CorrectedNS = h
	}
	return l, nil
}

// decode checks the series against the result it belongs to (r, its
// histograms decoded) and decodes it. Its shape must be one load writes
// (CheckInterval; as many intervals as the window holds), its counts not
// negative, and it must add up to r: its answered requests and errors to
// r's, its histograms' counts to r's corrected histogram's.
func (l *seriesLine) decode(r Result) (*Series, error) {
	s := &Series{Interval: time.Duration(l.IntervalNS), Window: time.Duration(l.WindowNS)}
	if s.Window <= 0 {
		return nil, fmt.Errorf("window_ns %d: want a positive window", l.WindowNS)
	}
	if err := CheckInterval(s.Interval, s.Window); err != nil && s.Interval != s.Window { // one interval may be shorter than MinInterval
		return nil, fmt.Errorf("interval_ns %d: %v", l.IntervalNS, err)
	}
	if n := Intervals(s.Window, s.Interval); len(l.Points) != n {
		return nil, fmt.Errorf("%d intervals, want the %d of %v in %v", len(l.Points), n, s.Interval, s.Window)
	}
	s.Points = make([]Point, len(l.Points))
	var left [3]int64 // what the intervals may still hold: answered, errors, latencies
	left[0], left[1], left[2] = r.Answered, r.Errors, totalCount(r)
	for i, p := range l.Points {
		if p.Answered < 0 || p.Errors < 0 {
			return nil, fmt.Errorf("interval %d: negative counts", i)
		}
		s.Points[i] = Point{Answered: p.Answered, Errors: p.Errors}
		if p.CorrectedNS != "" {
			h, err := decodeHistAt(p.CorrectedNS, SeriesDigits)
			if err != nil {
				return nil, fmt.Errorf("interval %d's histogram: %w", i, err)
			}
			s.Points[i].Hist = h
			left[2] -= h.TotalCount()
		}
		left[0] -= p.Answered
		left[1] -= p.Errors
		if left[0] < 0 || left[1] < 0 || left[2] < 0 {
			return nil, fmt.Errorf("interval %d: the intervals up to it hold more than the result (%d answered, %d errors, %d latencies)",
				i, r.Answered, r.Errors, totalCount(r))
		}
	}
	return s, s.Check(r)
}

func totalCount(r Result) int64 {
	if r.CorrectedHist == nil {
		return 0
	}
	return r.CorrectedHist.TotalCount()
}

// Check says where the series does not add up to r: its answered
// requests, errors and recorded latencies to r's.
func (s *Series) Check(r Result) error {
	answered, errs, recorded := s.Totals()
	total := totalCount(r)
	switch {
	case answered != r.Answered:
		return fmt.Errorf("its intervals' answered add up to %d, the result's are %d", answered, r.Answered)
	case errs != r.Errors:
		return fmt.Errorf("its intervals' errors add up to %d, the result's are %d", errs, r.Errors)
	case recorded != total:
		return fmt.Errorf("its intervals' histograms hold %d latencies, the corrected histogram %d", recorded, total)
	}
	return nil
}
