package loadresult

import (
	"encoding/json"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestJSONNanoseconds: every duration of a result's JSON is integer
// nanoseconds under a key that says so; no key speaks of µs.
func TestJSONNanoseconds(t *testing.T) {
	r := synth(t, "a", t0, time.Second, []int64{100, 200, 1234}, 1)
	r.Corrected.P99, r.Spin = 1_234_567*time.Nanosecond, 3*time.Microsecond
	b, err := json.Marshal(r.JSON())
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"p99_ns":1234567`, `"spin_ns":3000`, `"elapsed_ns":1000000000`, `"cpu_ns":500000000`, `"wall_ns":1000000000`} {
		if !strings.Contains(string(b), want) {
			t.Errorf("JSON lacks %s:\n%s", want, b)
		}
	}
	if strings.Contains(string(b), "_us") {
		t.Errorf("JSON in µs:\n%s", b)
	}
	var back JSON
	if err := json.Unmarshal(b, &back); err != nil || back.Corrected != r.Corrected || back.Generator.ReceiveLag != r.ReceiveLag {
		t.Fatalf("JSON read back as %+v, %v", back.Corrected, err)
	}
}

// TestPercentilesOneList: the percentiles a histogram gives, their JSON
// keys and their order are those of Percentiles.
func TestPercentilesOneList(t *testing.T) {
	h := NewHistogram()
	for v := int64(1); v <= 100_000; v++ {
		h.RecordValue(v * 1000)
	}
	l := LatenciesOf(h)
	vals := l.Values()
	if len(vals) != len(Percentiles) {
		t.Fatalf("%d values for %d percentiles", len(vals), len(Percentiles))
	}
	for i, p := range Percentiles {
		want := time.Duration(h.ValueAtQuantile(p.Quantile))
		if p.Quantile >= 100 {
			want = time.Duration(h.Max())
		}
		if vals[i] != want {
			t.Errorf("%s = %v, want %v", p.Name, vals[i], want)
		}
	}
	b, _ := json.Marshal(l)
	var keys []string
	for _, f := range strings.Split(strings.Trim(string(b), "{}"), ",") {
		k, _, _ := strings.Cut(f, ":")
		keys = append(keys, strings.Trim(k, `"`))
	}
	if got, want := strings.Join(keys, " "), strings.Join(PercentileNames(), "_ns ")+"_ns"; got != want {
		t.Fatalf("JSON keys %q, want %q", got, want)
	}
	if err := json.Unmarshal([]byte(`{"p99_us":3}`), &l); err == nil || strings.Contains(err.Error(), "\n") {
		t.Fatalf("a µs key read as %v", err)
	}
}

// TestRoundTripAll: every field a result file holds reads back.
func TestRoundTripAll(t *testing.T) {
	r := synth(t, "gen-a", t0, 2*time.Second, []int64{100, 200}, 3)
	r.ErrorTexts, r.Gone, r.Expired, r.Mismatched, r.TimedOut, r.Scheduled = []ErrorCount{{"read: i/o timeout", 2}, {"read: EOF", 1}}, 1, 2, 0, 2, 5
	r.Spin, r.CPU, r.Wall, r.Elapsed, r.Duration = time.Millisecond, 700*time.Millisecond, 3*time.Second, 1500*time.Millisecond, 2*time.Second
	r.Offered, r.Behind, r.Interrupted, r.PacingMethod = 10, true, true, "loop timers (CallAt)"
	r.ReceiveLagHist = NewHistogram()
	r.ReceiveLagHist.RecordValue(4321)
	r.Summarize()
	got := roundTrip(t, r)
	if got.Spin != r.Spin || got.CPU != r.CPU || got.Wall != r.Wall || got.Elapsed != r.Elapsed || got.Duration != r.Duration ||
		got.Gone != 1 || got.Expired != 2 || len(got.ErrorTexts) != 2 || got.ErrorTexts[1] != r.ErrorTexts[1] || !got.Behind || !got.Interrupted ||
		got.Offered != 10 || got.PacingMethod != r.PacingMethod || got.CPUs != 1 || got.Size != 1024 || got.Conns != 10 || !got.Balanced() {
		t.Fatalf("round trip:\n got %+v\nwant %+v", got, r)
	}
	if got.Corrected != r.Corrected || got.Uncorrected != r.Uncorrected || got.PacingLag != r.PacingLag || got.ReceiveLag != r.ReceiveLag || got.UncorrectedMean != r.UncorrectedMean {
		t.Fatalf("percentiles read back as %+v %+v, want %+v %+v", got.Corrected, got.ReceiveLag, r.Corrected, r.ReceiveLag)
	}
}

// TestReadVersion2: a file load -out wrote in format 2 (the seed corpus's
// single run) still reads: its cores over its window as CPU and wall.
func TestReadVersion2(t *testing.T) {
	b, err := os.ReadFile("testdata/fuzz/FuzzRead/single-run")
	if err != nil {
		t.Fatal(err)
	}
	var quoted string
	if _, rest, ok := strings.Cut(string(b), "[]byte("); ok {
		quoted = strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), ")"))
	}
	text, err := strconv.Unquote(quoted)
	if err != nil {
		t.Fatalf("seed file: %v", err)
	}
	rs, err := Read("v2", strings.NewReader(text))
	if err != nil || len(rs) != 1 {
		t.Fatalf("Read = %d results, %v", len(rs), err)
	}
	r := rs[0]
	if r.Wall != 500*time.Millisecond || r.Elapsed != r.Wall || r.Requests != 250 || !r.Balanced() || r.CorrectedHist.TotalCount() == 0 {
		t.Fatalf("version 2: wall %v elapsed %v, %d requests", r.Wall, r.Elapsed, r.Requests)
	}
	if c := r.Cores(); c < 0.1475 || c > 0.1476 {
		t.Fatalf("version 2 cores %v, want the file's 0.1476", c)
	}
}
