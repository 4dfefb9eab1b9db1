package main

import (
	"bufio"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/loopbench/loopbench/internal/measure/loadresult"
)

// TestLoadIntervalErrors: an -interval under 10ms, over the -duration,
// or cutting the window into more than loadresult.MaxIntervals is a
// usage error of one line naming it; 100ms is taken.
func TestLoadIntervalErrors(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-interval", "5ms"}, "-interval 5ms: want at least 10ms"},
		{[]string{"-interval", "20s", "-duration", "10s"}, "-interval 20s: want at most the -duration, 10s"},
		{[]string{"-interval", "10ms", "-duration", "1h"}, "-interval 10ms: 360000 intervals in -duration 1h0m0s, want at most 3600"},
	} {
		_, errs, code := runOut(append([]string{"load", "-addr", "127.0.0.1:1"}, c.args...)...)
		if code != 2 || strings.Count(errs, "\n") != 1 || !strings.Contains(errs, c.want) {
			t.Errorf("%v: exit %d, %q; want 2 and one line with %q", c.args, code, errs, c.want)
		}
	}
	f, err := parseLoad([]string{"-addr", "x:1", "-interval", "100ms", "-duration", "2s"}, os.Stderr)
	if err != nil || f.cfg.Interval != 100*time.Millisecond {
		t.Fatalf("-interval 100ms: %v, %v", f.cfg.Interval, err)
	}
	if f, err := parseLoad([]string{"-addr", "x:1", "-duration", "500ms"}, os.Stderr); err != nil || f.cfg.Interval != 0 {
		t.Fatalf("no -interval with -duration 500ms: %v, %v; want load's default", f.cfg.Interval, err)
	}
}

// TestLoadSeriesOut: a run's -out holds its series at -interval, adding
// up to its counts, and -report draws it.
func TestLoadSeriesOut(t *testing.T) {
	addr, dir := gonet(t), t.TempDir()
	out := filepath.Join(dir, "r.json")
	_, errs, code := runOut("load", "-addr", addr, "-conns", "2", "-size", "64", "-warmup", "0s", "-duration", "300ms",
		"-rate", "200", "-interval", "100ms", "-out", out, "-report", filepath.Join(dir, "rep"))
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	rs, err := loadresult.ReadFile(out)
	if err != nil || len(rs) != 1 || rs[0].Series == nil {
		t.Fatalf("-out: %d results, %v", len(rs), err)
	}
	s := rs[0].Series
	if s.Interval != 100*time.Millisecond || len(s.Points) != 3 || s.Check(rs[0]) != nil {
		t.Fatalf("series of %v, %d intervals, %v", s.Interval, len(s.Points), s.Check(rs[0]))
	}
	svg, err := os.ReadFile(filepath.Join(dir, "rep", "series.svg"))
	if err != nil || strings.Count(string(svg), ": throughput<") != 1 || !strings.Contains(errs, "series.svg") {
		t.Fatalf("-report: %v; stderr %q", err, errs)
	}
}

// seriesResult is a generator's result with n answers of lat µs and
// errs errors dealt over the intervals of a 3 s window from start.
func seriesResult(name string, start time.Time, interval time.Duration, n int, lat int64, errs int64) loadresult.Result {
	const d = 3 * time.Second
	c, u, lag := loadresult.NewHistogram(), loadresult.NewHistogram(), loadresult.NewHistogram()
	s := &loadresult.Series{Interval: interval, Window: d, Points: make([]loadresult.Point, loadresult.Intervals(d, interval))}
	for i := range n {
		v := (lat + int64(i)) * 1000
		c.RecordValue(v)
		u.RecordValue(v)
		lag.RecordValue(1000)
		p := &s.Points[i%len(s.Points)]
		if p.Hist == nil {
			p.Hist = loadresult.NewSeriesHistogram()
		}
		p.Hist.RecordValue(v)
		p.Answered++
	}
	s.Points[0].Errors = errs
	r := loadresult.Result{Name: name, Label: "echo", Addr: "198.18.0.1:9000", Conns: 4, Size: 1024, CPUs: 1,
		Requests: int64(n), Scheduled: int64(n) + errs, Answered: int64(n), Errors: errs, Offered: 10, Achieved: float64(n) / d.Seconds(),
		WindowStart: start, WindowEnd: start.Add(d), Elapsed: d, Duration: d, CPU: d / 4, Wall: d,
		CorrectedHist: c, UncorrectedHist: u, PacingLagHist: lag, Series: s}
	r.Summarize()
	return r
}

// writeResults writes rs to dir/name as load -out does.
func writeResults(t *testing.T, dir, name string, rs ...loadresult.Result) string {
	t.Helper()
	var b strings.Builder
	for _, r := range rs {
		if err := r.Write(&b); err != nil {
			t.Fatal(err)
		}
	}
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestMergeSeries: generators whose windows line up merge their series
// interval by interval into -out; windows apart leave it out with one
// line saying why.
func TestMergeSeries(t *testing.T) {
	dir, t0 := t.TempDir(), time.Date(2026, 11, 23, 10, 0, 0, 0, time.UTC)
	a := writeResults(t, dir, "a.txt", seriesResult("a", t0, time.Second, 30, 100, 2))
	b := writeResults(t, dir, "b.txt", seriesResult("b", t0.Add(30*time.Millisecond), time.Second, 60, 300, 1))
	late := writeResults(t, dir, "late.txt", seriesResult("late", t0.Add(400*time.Millisecond), time.Second, 30, 100, 0))
	out := filepath.Join(dir, "m.txt")
	_, errs, code := runOut("merge", "-out", out, a, b)
	if code != 0 || strings.Contains(errs, "left out") {
		t.Fatalf("exit %d: %s", code, errs)
	}
	rs, err := loadresult.ReadFile(out)
	if err != nil || len(rs) != 1 || rs[0].Series == nil || rs[0].Name != "a+b" {
		t.Fatalf("-out: %d results, %v", len(rs), err)
	}
	for i, p := range rs[0].Series.Points {
		if p.Answered != 30 || p.Hist.TotalCount() != 30 {
			t.Errorf("interval %d: %d answered, %d latencies; want 10 of a's and 20 of b's", i, p.Answered, p.Hist.TotalCount())
		}
	}
	if rs[0].Series.Points[0].Errors != 3 {
		t.Errorf("interval 0: %d errors, want 3", rs[0].Series.Points[0].Errors)
	}
	_, errs, code = runOut("merge", "-out", out, a, late)
	rs, err = loadresult.ReadFile(out)
	want := "loopbench merge: the per-interval series is left out: the windows of late and a start 400ms apart"
	if code != 0 || strings.Count(errs, want) != 1 || err != nil || rs[0].Series != nil {
		t.Fatalf("windows apart: exit %d, %v, series %v:\n%s", code, err, rs[0].Series, errs)
	}
}

// TestMergeHgrm: merge -hgrm writes the merged corrected histogram, and
// the file read back gives the merged result's count, p50 and max.
func TestMergeHgrm(t *testing.T) {
	dir, t0 := t.TempDir(), time.Date(2026, 11, 23, 10, 0, 0, 0, time.UTC)
	ra, rb := seriesResult("a", t0, time.Second, 30, 100, 0), seriesResult("b", t0, time.Second, 60, 300, 0)
	a, b := writeResults(t, dir, "a.txt", ra), writeResults(t, dir, "b.txt", rb)
	path := filepath.Join(dir, "m.hgrm")
	if _, errs, code := runOut("merge", "-hgrm", path, a, b); code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	m := loadresult.Merge(ra, rb)
	rows, total := readHgrmRows(t, path)
	if total != m.CorrectedHist.TotalCount() || total != 90 {
		t.Fatalf("total count %d, want the merged %d", total, m.CorrectedHist.TotalCount())
	}
	for _, q := range []float64{0.5, 1} {
		v, ok := rows[q]
		want := float64(m.CorrectedHist.ValueAtQuantile(100*q)) / 1e6
		if !ok || v < want-0.0005 || v > want+0.0005 {
			t.Errorf("the row at %v: %.3f ms (%v), want %.3f ms", q, v, ok, want)
		}
	}
	sweep := writeResults(t, dir, "s.txt", ra.AsStep(0, time.Millisecond, 0.01))
	if _, errs, code := runOut("merge", "-hgrm", path, sweep); code != 2 || !strings.Contains(errs, "-hgrm holds one run's histogram") {
		t.Errorf("-hgrm of a sweep: exit %d, %s", code, errs)
	}
}

// readHgrmRows reads a .hgrm's values (ms) by percentile, and its total
// count.
func readHgrmRows(t *testing.T, path string) (map[float64]float64, int64) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, total := map[float64]float64{}, int64(-1)
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fs := strings.Fields(sc.Text())
		if len(fs) == 4 && fs[0] != "Value" {
			v, err1 := strconv.ParseFloat(fs[0], 64)
			q, err2 := strconv.ParseFloat(fs[1], 64)
			if err1 != nil || err2 != nil {
				t.Fatalf("row %q", sc.Text())
			}
			rows[q] = v
		}
		if _, n, ok := strings.Cut(sc.Text(), "Total count    = "); ok {
			total, _ = strconv.ParseInt(strings.TrimRight(strings.TrimSpace(n), "]"), 10, 64)
		}
	}
	return rows, total
}

// TestReportLoadSeries: loopbench report on a load -out file of a sweep
// draws its series, one row per step.
func TestReportLoadSeries(t *testing.T) {
	dir, t0 := t.TempDir(), time.Date(2026, 11, 23, 10, 0, 0, 0, time.UTC)
	var steps []loadresult.Result
	for k := range 3 {
		steps = append(steps, seriesResult("g", t0.Add(time.Duration(k)*5*time.Second), time.Second, 30, 100, int64(k)).AsStep(k, time.Millisecond, 0.01))
	}
	in := writeResults(t, dir, "sweep.json", steps...)
	rep := filepath.Join(dir, "rep")
	if _, errs, code := runOut("report", "-out", rep, in); code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	svg, err := os.ReadFile(filepath.Join(rep, "series.svg"))
	if err != nil {
		t.Fatal(err)
	}
	for k := 1; k <= 3; k++ {
		if n := strings.Count(string(svg), ">step "+strconv.Itoa(k)+", 10 req/s offered: throughput<"); n != 1 {
			t.Errorf("step %d's panel drawn %d times", k, n)
		}
	}
}
