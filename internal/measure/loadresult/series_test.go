package loadresult

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

// withSeries is synth's result with lat (µs) and errs dealt round robin
// over the intervals of interval in its window, as load records them:
// every latency in its interval's histogram, every answer and error
// counted in one interval.
func withSeries(t testing.TB, name string, start time.Time, d, interval time.Duration, lat []int64, errs int64) Result {
	t.Helper()
	r := synth(t, name, start, d, lat, errs)
	n := Intervals(d, interval)
	s := &Series{Interval: interval, Window: d, Points: make([]Point, n)}
	for i, v := range lat {
		p := &s.Points[i%n]
		if p.Hist == nil {
			p.Hist = NewSeriesHistogram()
		}
		p.Hist.RecordValue(v * 1000)
		p.Answered++
	}
	for i := range errs {
		s.Points[int(i)%n].Errors++
	}
	r.Series = s
	return r
}

// TestSeriesRoundTrip: a series writes and reads back interval by
// interval, its last interval partial, an empty interval empty.
func TestSeriesRoundTrip(t *testing.T) {
	r := withSeries(t, "a", t0, 2500*time.Millisecond, time.Second, []int64{100, 200, 300, 400, 5000}, 2)
	r.Series.Points[1].Answered, r.Series.Points[2].Answered = r.Series.Points[1].Answered+r.Series.Points[2].Answered, 0
	r.Series.Points[1].Hist.Merge(r.Series.Points[2].Hist)
	r.Series.Points[2].Hist = nil
	got := roundTrip(t, r).Series
	if got == nil || got.Interval != time.Second || got.Window != 2500*time.Millisecond || len(got.Points) != 3 {
		t.Fatalf("series %+v", got)
	}
	for i, want := range []struct{ answered, errors, recorded int64 }{{2, 1, 2}, {3, 1, 3}, {0, 0, 0}} {
		p := got.Points[i]
		var recorded int64
		if p.Hist != nil {
			recorded = p.Hist.TotalCount()
		}
		if p.Answered != want.answered || p.Errors != want.errors || recorded != want.recorded {
			t.Errorf("interval %d: %d answered, %d errors, %d latencies; want %+v", i, p.Answered, p.Errors, recorded, want)
		}
	}
	if got.Length(2) != 500*time.Millisecond || got.Throughput(1) != 3 || got.Throughput(2) != 0 {
		t.Errorf("last length %v, throughputs %v and %v", got.Length(2), got.Throughput(1), got.Throughput(2))
	}
	if l := got.Latencies(0); l.Max < 400*time.Microsecond || l.Max > 404*time.Microsecond { // 2 digits: within 1 %
		t.Errorf("interval 0's max %v, want 400µs within 1 %%", l.Max)
	}
	if roundTrip(t, synth(t, "b", t0, time.Second, []int64{1}, 0)).Series != nil {
		t.Error("a result without a series read back with one")
	}
}

// TestReadSeriesErrors: a series no load run writes is an error of one
// line naming what is wrong.
func TestReadSeriesErrors(t *testing.T) {
	good := line(t, withSeries(t, "a", t0, 2*time.Second, time.Second, []int64{100, 200}, 1))
	other := line(t, withSeries(t, "a", t0, 2*time.Second, time.Second, []int64{100, 200, 300}, 1))
	otherHist := other[strings.Index(other, `"intervals":[{`):]
	fifty := `"interval_ns":50000000,"window_ns":2000000000`
	pointHist := func(h string) string { // good with interval 0's histogram h
		key := `"corrected_hist_ns":"`
		i := strings.Index(good, `"intervals":[{`)
		i += strings.Index(good[i:], key) + len(key)
		return good[:i] + h + good[i+strings.Index(good[i:], `"`):]
	}
	for _, c := range []struct{ name, in, want string }{
		{"interval too short", strings.Replace(good, `"interval_ns":1000000000`, `"interval_ns":1000`, 1), "want at least 10ms"},
		{"interval past the window", strings.Replace(good, `"interval_ns":1000000000`, `"interval_ns":3000000000`, 1), "want at most the -duration"},
		{"too many intervals", strings.Replace(good, `"interval_ns":1000000000,"window_ns":2000000000`, `"interval_ns":10000000,"window_ns":100000000000`, 1), "want at most 3600"},
		{"intervals missing", strings.Replace(good, `"interval_ns":1000000000,"window_ns":2000000000`, fifty, 1), "2 intervals, want the 40"},
		{"no window", strings.Replace(good, `"window_ns":2000000000`, `"window_ns":0`, 1), "want a positive window"},
		{"negative count", strings.Replace(good, `{"answered":1,"errors":1`, `{"answered":-1,"errors":1`, 1), "interval 0: negative counts"},
		{"answers do not add up", strings.Replace(good, `{"answered":1,"errors":1`, `{"answered":0,"errors":1`, 1), "answered add up to 1, the result's are 2"},
		{"errors do not add up", strings.Replace(good, `{"answered":1,"errors":1`, `{"answered":1,"errors":0`, 1), "errors add up to 0, the result's are 1"},
		{"more than the result", strings.Replace(good, `{"answered":1,"errors":1`, `{"answered":9223372036854775807,"errors":1`, 1), "interval 0: the intervals up to it hold more"},
		{"histograms do not add up", good[:strings.Index(good, `"intervals":[{`)] + otherHist, "hold more than the result"},
		{"bad histogram", pointHist("xx"), "series: interval 0's histogram: not base64"},
		{"run histogram's digits", pointHist(craftHist(3, 1, HistHighest, nil, 0)), "at 3 digits, want a load histogram's: 1 ns to 60000000000 ns at 2 digits"},
		{"counts past the end", pointHist(craftHist(2, 1, HistHighest, bytes.Repeat([]byte{2}, seriesCountsLen+1), int32(seriesCountsLen+1))), "more than the histogram's"},
		{"series in version 3", strings.Replace(good, Format, formatV3, 1), "a series in a loopbench-load-result/3 result"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := Read("f", strings.NewReader(c.in))
			if err == nil || !strings.HasPrefix(err.Error(), "f:1: ") || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
				t.Fatalf("Read = %v, want one line with %q", err, c.want)
			}
		})
	}
}

// TestMergeSeries: generators whose windows line up merge their series
// interval by interval; otherwise the merge has none and one line says
// why.
func TestMergeSeries(t *testing.T) {
	a := withSeries(t, "a", t0, 3*time.Second, time.Second, []int64{100, 200, 300}, 1)
	b := withSeries(t, "b", t0.Add(20*time.Millisecond), 3*time.Second, time.Second, []int64{1000, 2000, 3000, 4000}, 2)
	m, err := MergeGenerators([]Result{roundTrip(t, a), roundTrip(t, b)})
	if err != nil || m.Series == nil || m.SeriesLeftOut != "" {
		t.Fatalf("aligned: series %v, left out %q, %v", m.Series, m.SeriesLeftOut, err)
	}
	if err := m.Series.Check(m.Result); err != nil {
		t.Fatal(err)
	}
	for i, want := range []int64{3, 2, 2} {
		if p := m.Series.Points[i]; p.Answered != want || p.Hist.TotalCount() != want {
			t.Errorf("interval %d: %d answered, %d latencies; want %d", i, p.Answered, p.Hist.TotalCount(), want)
		}
	}
	if max := m.Series.Latencies(0).Max; max < 4*time.Millisecond {
		t.Errorf("interval 0's max %v, want b's 4ms", max)
	}
	late := withSeries(t, "c", t0.Add(500*time.Millisecond), 3*time.Second, time.Second, []int64{1}, 0)
	fine := withSeries(t, "d", t0, 3*time.Second, 100*time.Millisecond, []int64{1}, 0)
	for _, c := range []struct {
		rs   []Result
		want string
	}{
		{[]Result{a, late}, "the windows of c and a start 500ms apart, more than a tenth of the 1s interval"},
		{[]Result{a, fine}, "d has 30 intervals of 100ms over 3s, a 3 of 1s over 3s"},
		{[]Result{a, synth(t, "e", t0, 3*time.Second, []int64{1}, 0)}, "e has no per-interval series"},
	} {
		m, err := MergeGenerators(c.rs)
		if err != nil || m.Series != nil || !strings.Contains(m.SeriesLeftOut, c.want) || strings.Contains(m.SeriesLeftOut, "\n") {
			t.Errorf("series %v, left out %q (%v); want none and one line with %q", m.Series, m.SeriesLeftOut, err, c.want)
		}
	}
}
