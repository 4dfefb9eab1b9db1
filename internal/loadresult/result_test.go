package loadresult

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"
	"github.com/loopbench/loopbench/internal/load"
)

var t0 = time.Date(2026, 11, 23, 10, 0, 0, 0, time.UTC)

// synth is a generator's result with the given latencies (µs), window
// from start for d, and errors.
func synth(t *testing.T, name string, start time.Time, d time.Duration, lat []int64, errs int64) Result {
	t.Helper()
	c, u := hdrhistogram.New(1, 60_000_000, 3), hdrhistogram.New(1, 60_000_000, 3)
	for _, v := range lat {
		c.RecordValue(v)
		u.RecordValue(max(v/2, 1))
	}
	rep := load.Report{
		Requests: int64(len(lat)), Errors: errs, Offered: 0, Achieved: float64(len(lat)) / d.Seconds(),
		WindowStart: start, WindowEnd: start.Add(d), CPU: d / 2, Wall: d,
		CorrectedHist: c, UncorrectedHist: u,
	}
	r, err := FromReport(rep, load.Config{Label: "srv", Addr: "198.18.0.1:9000", Conns: 10, Size: 1024}, name, 1)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func roundTrip(t *testing.T, r Result) Result {
	t.Helper()
	var b bytes.Buffer
	if err := r.Write(&b); err != nil {
		t.Fatal(err)
	}
	rs, err := Read("x", strings.NewReader("some log line\n"+b.String()+"another\n"))
	if err != nil || len(rs) != 1 {
		t.Fatalf("Read = %d results, %v", len(rs), err)
	}
	return rs[0]
}

func TestRoundTrip(t *testing.T) {
	r := synth(t, "gen-a", t0, time.Second, []int64{100, 200, 300, 5000}, 2)
	got := roundTrip(t, r)
	if got.Requests != 4 || got.Errors != 2 || got.Name != "gen-a" || !got.WindowStart.Equal(t0) {
		t.Fatalf("round trip: %+v", got)
	}
	if got.Corrected().TotalCount() != 4 || got.Corrected().Max() < 4990 || got.Uncorrected().TotalCount() != 4 {
		t.Fatalf("histograms: corrected %d values max %d", got.Corrected().TotalCount(), got.Corrected().Max())
	}
}

func TestMergeSumsAndMergesHistograms(t *testing.T) {
	a := roundTrip(t, synth(t, "a", t0, 10*time.Second, []int64{100, 110, 120, 130}, 0))
	b := roundTrip(t, synth(t, "b", t0.Add(100*time.Millisecond), 10*time.Second, []int64{1000, 1100, 90_000}, 1))
	c := roundTrip(t, synth(t, "c", t0.Add(50*time.Millisecond), 10*time.Second, []int64{500, 600}, 0))
	m, err := Merge([]Result{a, b, c})
	if err != nil {
		t.Fatal(err)
	}
	if m.Requests != 9 || m.Errors != 1 {
		t.Fatalf("requests %d errors %d, want 9 and 1", m.Requests, m.Errors)
	}
	if want := a.AchievedRPS + b.AchievedRPS + c.AchievedRPS; m.AchievedRPS != want {
		t.Fatalf("rate %v, want the sum %v", m.AchievedRPS, want)
	}
	// The merged max is the largest max; the merged p50 lies in the
	// generators' range; the merged p99 is not an average of p99s.
	if m.Corrected.Max < 89*time.Millisecond {
		t.Fatalf("merged max %v, want b's 90ms", m.Corrected.Max)
	}
	if m.Corrected.P50 < 100*time.Microsecond || m.Corrected.P50 > 90*time.Millisecond {
		t.Fatalf("merged p50 %v out of the generators' range", m.Corrected.P50)
	}
	if m.Corrected.P50 > 700*time.Microsecond || m.Corrected.P50 < 400*time.Microsecond {
		t.Fatalf("merged p50 %v, want the 5th of 9 values (500µs)", m.Corrected.P50)
	}
	if m.Overlap < 0.98 || len(m.Warnings) != 0 {
		t.Fatalf("overlap %v warnings %q", m.Overlap, m.Warnings)
	}
}

func TestMergeWarns(t *testing.T) {
	a := synth(t, "a", t0, 10*time.Second, []int64{100}, 0)
	b := synth(t, "b", t0.Add(5*time.Second), 10*time.Second, []int64{100}, 0)
	b.Behind, b.OfferedRPS = true, 1000
	b.CPUCores, b.CPUs = 0.95, 1
	m, _ := Merge([]Result{a, b})
	text := strings.Join(m.Warnings, "\n")
	for _, want := range []string{"overlap by 50%", "b: fell behind", "b: kept 0.95 of its 1 CPUs busy"} {
		if !strings.Contains(text, want) {
			t.Errorf("warnings %q lack %q", text, want)
		}
	}
	if _, err := Merge(nil); err == nil {
		t.Error("Merge of nothing did not fail")
	}
}

func TestReadErrors(t *testing.T) {
	var b bytes.Buffer
	synth(t, "a", t0, time.Second, []int64{100}, 0).Write(&b)
	good := b.String()
	for _, c := range []struct{ name, in, want string }{
		{"empty", "", "no loopbench load result"},
		{"log only", "hello\nworld\n", "no loopbench load result"},
		{"truncated", good[:len(good)/2] + "\n", "f:1: not a load result"},
		{"other format", `{"format":"something/2"}` + "\n", `f:1: format "something/2"`},
		{"bad histogram", strings.Replace(good, `"corrected_hist_us":"`, `"corrected_hist_us":"xx`, 1), "corrected histogram"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := Read("f", strings.NewReader(c.in))
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("Read = %v, want an error with %q", err, c.want)
			}
		})
	}
	// A bad line after a good one keeps the good one.
	rs, err := Read("f", strings.NewReader(good+"{\"format\": 1}\n"))
	if err == nil || len(rs) != 1 {
		t.Fatalf("Read = %d results, %v; want the first kept and an error", len(rs), err)
	}
}
