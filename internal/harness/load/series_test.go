package load

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/loopbench/loopbench/internal/measure/loadresult"
)

// checkSeries checks the identity of a run and its series: the intervals
// of the window, their answered requests and errors summing to the
// run's, and their histograms merged holding the run's corrected
// histogram's counts, bucket by bucket at the series' digits.
func checkSeries(t *testing.T, cfg Config, rep loadresult.Result) {
	t.Helper()
	s := rep.Series
	if s == nil {
		t.Fatal("no series")
	}
	if want := loadresult.Intervals(cfg.Duration, seriesInterval(cfg.withDefaults())); len(s.Points) != want || s.Window != cfg.Duration {
		t.Fatalf("%d intervals over %v, want %d over %v", len(s.Points), s.Window, want, cfg.Duration)
	}
	if err := s.Check(rep); err != nil {
		t.Fatal(err)
	}
	merged, run := loadresult.NewSeriesHistogram(), loadresult.NewSeriesHistogram()
	for _, p := range s.Points {
		if p.Hist != nil {
			merged.Merge(p.Hist)
		}
	}
	for _, b := range rep.CorrectedHist.Distribution() {
		run.RecordValues(b.From, b.Count) // a run bucket lies within one bucket of the series'
	}
	if !slices.Equal(merged.Export().Counts, run.Export().Counts) {
		t.Fatalf("the intervals' histograms merged (%d latencies) differ from the run's (%d)", merged.TotalCount(), run.TotalCount())
	}
}

// TestSeriesBoundaries: a request counts in the interval its intended
// time falls in, [start+i*interval, start+(i+1)*interval), the last one
// partial; an answer counts as answered there, a timeout and an unsent
// request as latencies only, an error as an error. The times are given,
// as the loop's clock would read them.
func TestSeriesBoundaries(t *testing.T) {
	const measure, window = time.Second, 2500 * time.Millisecond
	r := newRecorder()
	r.series = newSeries(measure, window, time.Second)
	for _, at := range []time.Duration{measure, 2*time.Second - 1, 2 * time.Second, 3 * time.Second, measure + window - 1} {
		r.answer(at, time.Millisecond, time.Millisecond)
	}
	r.timeout(2*time.Second, time.Second, time.Second)
	r.series.failed(2 * time.Second) // the timeout's error, as conn.failed counts it
	r.series.failed(measure)
	at := func(k int) time.Duration { return 3*time.Second + time.Duration(k)*200*time.Millisecond }
	r.unsentFrom(at, 0, measure, measure+window) // 3 s, 3.2 s and 3.4 s
	s := r.result(newErrorLog()).Series
	if s == nil || len(s.Points) != 3 || s.Length(2) != 500*time.Millisecond {
		t.Fatalf("series %+v", s)
	}
	for i, want := range []struct{ answered, errors, recorded int64 }{{2, 1, 2}, {1, 1, 2}, {2, 0, 5}} {
		p := s.Points[i]
		if p.Answered != want.answered || p.Errors != want.errors || p.Hist.TotalCount() != want.recorded {
			t.Errorf("interval %d: %d answered, %d errors, %d latencies; want %+v", i, p.Answered, p.Errors, p.Hist.TotalCount(), want)
		}
	}
	if r.unsent != 3 || r.corrected.TotalCount() != 9 {
		t.Errorf("%d unsent, %d latencies; want 3 and 9", r.unsent, r.corrected.TotalCount())
	}
}

// TestSeriesInterval: the default interval is a second, the window when
// shorter, longer when the window holds more than DefaultIntervals
// seconds;
// a given one is checked, naming -interval.
func TestSeriesInterval(t *testing.T) {
	for _, c := range []struct{ d, interval, want time.Duration }{
		{10 * time.Second, 0, time.Second},
		{500 * time.Millisecond, 0, 500 * time.Millisecond},
		{10 * time.Minute, 0, time.Second},
		{2 * time.Hour, 0, 12 * time.Second},
		{10 * time.Second, 100 * time.Millisecond, 100 * time.Millisecond},
	} {
		if got := seriesInterval(Config{Duration: c.d, Interval: c.interval}); got != c.want {
			t.Errorf("-duration %v -interval %v: %v, want %v", c.d, c.interval, got, c.want)
		}
	}
	base := Config{Addr: "x", Conns: 1, Size: 64}
	for _, c := range []struct {
		d, interval time.Duration
		want        string
	}{
		{10 * time.Second, 5 * time.Millisecond, "-interval 5ms: want at least 10ms"},
		{10 * time.Second, 20 * time.Second, "-interval 20s: want at most the -duration, 10s"},
		{time.Hour, 10 * time.Millisecond, "-interval 10ms: 360000 intervals in -duration 1h0m0s, want at most 3600"},
	} {
		cfg := base
		cfg.Duration, cfg.Interval = c.d, c.interval
		if err := cfg.Validate(); err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("-duration %v -interval %v: %v, want %q", c.d, c.interval, err, c.want)
		}
	}
}
