package loadresult

import (
	"bytes"
	"compress/zlib"
	"encoding/base64"
	"encoding/binary"
	"strings"
	"testing"
	"time"
)

var t0 = time.Date(2026, 11, 23, 10, 0, 0, 0, time.UTC)

// synth is a generator's result with the given latencies (µs), window
// from start for d, and errors.
func synth(t testing.TB, name string, start time.Time, d time.Duration, lat []int64, errs int64) Result {
	t.Helper()
	c, u, lag := NewHistogram(), NewHistogram(), NewHistogram()
	for _, v := range lat {
		c.RecordValue(v * 1000)
		u.RecordValue(max(v/2, 1) * 1000)
		lag.RecordValue(20_000)
	}
	n := int64(len(lat))
	r := Result{
		Name: name, Label: "srv", Addr: "198.18.0.1:9000", Conns: 10, Size: 1024, CPUs: 1,
		Requests: n, Scheduled: n + errs, Answered: n, Errors: errs, Offered: 0, Achieved: float64(len(lat)) / d.Seconds(),
		WindowStart: start, WindowEnd: start.Add(d), Elapsed: d, Duration: d, CPU: d / 2, Wall: d,
		CorrectedHist: c, UncorrectedHist: u, PacingLagHist: lag,
	}
	r.Summarize()
	return r
}

func line(t testing.TB, r Result) string {
	var b bytes.Buffer
	if err := r.Write(&b); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

func roundTrip(t *testing.T, r Result) Result {
	t.Helper()
	rs, err := Read("x", strings.NewReader("some log line\n"+line(t, r)+"another\n"))
	if err != nil || len(rs) != 1 {
		t.Fatalf("Read = %d results, %v", len(rs), err)
	}
	return rs[0]
}

func TestRoundTrip(t *testing.T) {
	r := synth(t, "gen-a", t0, time.Second, []int64{100, 200, 300, 5000}, 2)
	r.Loops = 3
	got := roundTrip(t, r.AsStep(3, time.Millisecond, 0.01))
	if got.Requests != 4 || got.Loops != 3 || got.Errors != 2 || got.Scheduled != 6 || got.Name != "gen-a" || !got.WindowStart.Equal(t0) || *got.Step != 3 || got.SLO != time.Millisecond {
		t.Fatalf("round trip: %+v", got)
	}
	if got.CorrectedHist.TotalCount() != 4 || got.CorrectedHist.Max() < 4_990_000 || got.UncorrectedHist.TotalCount() != 4 || got.PacingLagHist.TotalCount() != 4 {
		t.Fatalf("histograms: corrected %d values max %d", got.CorrectedHist.TotalCount(), got.CorrectedHist.Max())
	}
}

func TestMergeSumsAndMergesHistograms(t *testing.T) {
	a := roundTrip(t, synth(t, "a", t0, 10*time.Second, []int64{100, 110, 120, 130}, 0))
	b := roundTrip(t, synth(t, "b", t0.Add(100*time.Millisecond), 10*time.Second, []int64{1000, 1100, 90_000}, 1))
	c := roundTrip(t, synth(t, "c", t0.Add(50*time.Millisecond), 10*time.Second, []int64{500, 600}, 0))
	m, err := MergeGenerators([]Result{a, b, c})
	if err != nil {
		t.Fatal(err)
	}
	if m.Requests != 9 || m.Errors != 1 || m.Scheduled != 10 || m.ErrorRate() != 0.1 {
		t.Fatalf("requests %d errors %d scheduled %d, want 9, 1 and 10", m.Requests, m.Errors, m.Scheduled)
	}
	if want := a.Achieved + b.Achieved + c.Achieved; m.Achieved != want {
		t.Fatalf("rate %v, want the sum %v", m.Achieved, want)
	}
	// The merged max is the largest max; the merged p50 is the 5th of
	// the 9 values, not an average of percentiles.
	if m.Corrected.Max < 89*time.Millisecond {
		t.Fatalf("merged max %v, want b's 90ms", m.Corrected.Max)
	}
	if m.Corrected.P50 > 501*time.Microsecond || m.Corrected.P50 < 499*time.Microsecond {
		t.Fatalf("merged p50 %v, want the 5th of 9 values (500µs)", m.Corrected.P50)
	}
	if m.Overlap < 0.98 || len(m.Warnings) != 0 || len(m.Refusals) != 0 {
		t.Fatalf("overlap %v warnings %q refusals %q", m.Overlap, m.Warnings, m.Refusals)
	}
}

func TestMergeWarns(t *testing.T) {
	a := synth(t, "a", t0, 10*time.Second, []int64{100}, 0)
	b := synth(t, "b", t0.Add(5*time.Second), 10*time.Second, []int64{100}, 0)
	b.Behind, b.Offered = true, 1000
	b.CPU, b.CPUs = b.Wall*95/100, 1
	m, _ := MergeGenerators([]Result{a, b})
	text := strings.Join(m.Warnings, "\n")
	for _, want := range []string{"overlap by 50%", "b: fell behind", "b: kept 0.95 cores busy of the 1 CPU"} {
		if !strings.Contains(text, want) {
			t.Errorf("warnings %q lack %q", text, want)
		}
	}
	if len(m.Refusals) != 0 {
		t.Errorf("refusals %q", m.Refusals)
	}
	if _, err := MergeGenerators(nil); err == nil {
		t.Error("MergeGenerators of nothing did not fail")
	}
}

// TestMergeRefuses: what summing would make meaningless is refused, each
// in one line: different runs, the same result twice, windows apart.
func TestMergeRefuses(t *testing.T) {
	a := synth(t, "a", t0, 10*time.Second, []int64{100}, 0)
	other := synth(t, "b", t0, 10*time.Second, []int64{100}, 0)
	other.Size = 64
	apart := synth(t, "c", t0.Add(20*time.Second), 10*time.Second, []int64{100}, 0)
	for _, c := range []struct {
		rs   []Result
		want string
	}{
		{[]Result{a, other}, `b: label "srv", 64 bytes; a: label "srv", 1024 bytes: not the same run`},
		{[]Result{a, a}, "a: its result of the window from 10:00:00.000 is there twice"},
		{[]Result{a, apart}, "the windows do not overlap (the latest starts at 10:00:20.000, the earliest ends at 10:00:10.000)"},
	} {
		m, err := MergeGenerators(c.rs)
		if err != nil || len(m.Refusals) != 1 || !strings.Contains(m.Refusals[0], c.want) || strings.Contains(m.Refusals[0], "\n") {
			t.Errorf("refusals %q (%v), want one line with %q", m.Refusals, err, c.want)
		}
	}
}

// craftHist encodes a V2 histogram with the given header fields and
// payload, as a hostile file could hold one.
func craftHist(digits int32, lowest, highest int64, payload []byte, claim int32) string {
	var plain bytes.Buffer
	for _, v := range []any{int32(payloadCookie | 0x10), claim, int32(0), digits, lowest, highest, float64(1)} {
		binary.Write(&plain, binary.BigEndian, v)
	}
	plain.Write(payload)
	var z bytes.Buffer
	zw := zlib.NewWriter(&z)
	zw.Write(plain.Bytes())
	zw.Close()
	var out bytes.Buffer
	binary.Write(&out, binary.BigEndian, int32(compressedCookie|0x10))
	binary.Write(&out, binary.BigEndian, int32(z.Len()))
	out.Write(z.Bytes())
	return base64.StdEncoding.EncodeToString(out.Bytes())
}

func TestReadErrors(t *testing.T) {
	good := line(t, synth(t, "a", t0, time.Second, []int64{100}, 0))
	hist := func(h string) string {
		i := strings.Index(good, `"corrected_hist_ns":"`) + len(`"corrected_hist_ns":"`)
		return good[:i] + h + good[i+strings.Index(good[i:], `"`):]
	}
	ok := func(payload []byte) string {
		return craftHist(3, 1, HistHighest, payload, int32(len(payload)))
	}
	for _, c := range []struct{ name, in, want string }{
		{"empty", "", "no loopbench load result"},
		{"log only", "hello\nworld\n", "no loopbench load result"},
		{"truncated", good[:len(good)/2] + "\n", "f:1: not a load result"},
		{"other format", `{"format":"something/2"}` + "\n", `f:1: format "something/2"`},
		{"version 1", strings.Replace(good, Format, "loopbench-load-result/1", 1), `format "loopbench-load-result/1", want "loopbench-load-result/4" (write it again`},
		{"bad histogram", hist("xx"), "corrected histogram: not base64"},
		{"short histogram", hist("AAAA"), "corrected histogram: not an HdrHistogram V2"},
		{"huge bounds", hist(craftHist(5, 1, 1<<62, nil, 0)), "bounds 1 to 4611686018427387904 at 5 digits, want a load histogram's"},
		{"inflates without end", hist(ok(make([]byte, 4<<20))), "inflates to more than"},
		{"empty run past the end", hist(ok([]byte{0xfd, 0xff, 0xff, 0xff, 0x0f})), "a run of"},
		{"counts past the end", hist(ok(bytes.Repeat([]byte{2}, countsLen+1))), "more than the histogram's"},
		{"truncated count", hist(ok([]byte{0x80})), "truncated count"},
		{"payload length lies", hist(craftHist(3, 1, HistHighest, []byte{2}, 7)), "says 7 payload bytes, holds 1"},
		{"window backwards", strings.Replace(good, `"window_end":"2026-11-23T10:00:01Z"`, `"window_end":"2026-11-23T09:00:00Z"`, 1), "window ends"},
		{"negative count", strings.Replace(good, `"errors":0`, `"errors":-1`, 1), "negative counts"},
		{"negative CPU", strings.Replace(good, `"cpu_ns":500000000`, `"cpu_ns":-5`, 1), "negative times or cores"},
		{"cores in version 3", strings.Replace(good, `"cpu_ns":`, `"generator_cpu_cores":0.5,"cpu_ns":`, 1), "generator_cpu_cores in a version 3 or 4 result"},
		{"latencies in µs", strings.Replace(good, `"cpu_ns":`, `"p99_us":5,"cpu_ns":`, 1), `unknown field "p99_us"`},
		{"long result line", `{"format":"` + strings.Repeat("x", MaxLine) + "\n", "longer than"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := Read("f", strings.NewReader(c.in))
			if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
				t.Fatalf("Read = %v, want one line with %q", err, c.want)
			}
		})
	}
	// A bad line after a good one keeps the good one; a long log line is
	// no result and no error.
	rs, err := Read("f", strings.NewReader(strings.Repeat("log ", MaxLine)+"\n"+good+"{\"format\": 1}\n"))
	if err == nil || len(rs) != 1 {
		t.Fatalf("Read = %d results, %v; want the first kept and an error", len(rs), err)
	}
}

// TestCPUBoundPerLoop: a generator is CPU-bound against the CPUs its
// loops can use, one per loop and at most the usable CPUs: one loop at
// 0.94 cores of a 16-CPU machine is, 0.94 cores over two loops is not; a
// result that does not count its loops is held against its CPUs.
func TestCPUBoundPerLoop(t *testing.T) {
	for _, c := range []struct {
		cpus, loops int
		cores       float64
		bound       bool
		busy        string
	}{
		{16, 1, 0.94, true, "kept 0.94 cores busy of the 1 CPU its 1 loop can use (16 usable)"},
		{2, 1, 0.85, false, "kept 0.85 cores busy of the 1 CPU its 1 loop can use (2 usable)"},
		{2, 2, 0.94, false, "kept 0.94 cores busy of the 2 CPUs its 2 loops can use (2 usable)"},
		{2, 4, 1.85, true, "kept 1.85 cores busy of the 2 CPUs its 4 loops can use (2 usable)"},
		{2, 0, 0.94, false, "kept 0.94 cores busy of the 2 CPUs"},
		{1, 0, 0.94, true, "kept 0.94 cores busy of the 1 CPU"},
		{0, 1, 0.99, false, "kept 0.99 cores busy of the 0 CPUs its 1 loop can use (0 usable)"},
	} {
		r := Result{CPUs: c.cpus, Loops: c.loops, Wall: time.Second, CPU: time.Duration(c.cores * float64(time.Second))}
		if r.CPUBound() != c.bound || r.CPUBusy() != c.busy {
			t.Errorf("%d CPUs, %d loops, %.2f cores: CPU-bound %v, %q; want %v, %q", c.cpus, c.loops, c.cores, r.CPUBound(), r.CPUBusy(), c.bound, c.busy)
		}
	}
}

// TestPlural: one of a noun, and any other number of them.
func TestPlural(t *testing.T) {
	for n, want := range map[int]string{0: "0 CPUs", 1: "1 CPU", 2: "2 CPUs", 16: "16 CPUs"} {
		if got := Plural(n, "CPU"); got != want {
			t.Errorf("Plural(%d) = %q, want %q", n, got, want)
		}
	}
	if got := Plural(int64(1), "request"); got != "1 request" {
		t.Errorf("Plural(int64 1) = %q", got)
	}
}
