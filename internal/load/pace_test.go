package load

import (
	"context"
	"slices"
	"testing"
	"time"
)

// TestSleepForNeverEarly: a wait never returns before its time (an
// order, not a duration bound).
func TestSleepForNeverEarly(t *testing.T) {
	for _, d := range []time.Duration{0, time.Microsecond, 50 * time.Microsecond, 300 * time.Microsecond, 2 * time.Millisecond} {
		for range 20 {
			start := time.Now()
			sleepFor(d)
			if got := time.Since(start); got < d {
				t.Fatalf("sleepFor(%v) returned after %v", d, got)
			}
		}
	}
}

// BenchmarkSleepFor reports how late a 200 µs wait for a send time
// returns: late-p50-ns and late-p99-ns (the runtime's timers return about
// 800 µs late on an idle Linux machine).
func BenchmarkSleepFor(b *testing.B) {
	const d = 200 * time.Microsecond
	late := make([]time.Duration, 0, b.N)
	for b.Loop() {
		start := time.Now()
		sleepFor(d)
		late = append(late, time.Since(start)-d)
	}
	slices.Sort(late)
	b.ReportMetric(float64(late[len(late)/2]), "late-p50-ns")
	b.ReportMetric(float64(late[len(late)*99/100]), "late-p99-ns")
}

// BenchmarkPacing runs the generator at 1000 req/s on one connection
// against a local echo server, b.N requests, and reports its pacing lag,
// the corrected and uncorrected p50 (which the lag separates), and the
// generator's CPU. Run it on an idle machine, for some seconds:
//
//	go test -run '^$' -bench Pacing -benchtime 5000x ./internal/load
func BenchmarkPacing(b *testing.B) {
	addr := faultServer(b, echoN(0, nil))
	cfg := Config{Addr: addr, Conns: 1, Size: 64, Rate: 1000, Warmup: 200 * time.Millisecond,
		Duration: time.Duration(b.N+1000) * time.Millisecond, Timeout: time.Second, Requests: int64(b.N)}
	b.ResetTimer()
	rep, err := Run(context.Background(), cfg)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(rep.PacingLag.P50), "lag-p50-ns")
	b.ReportMetric(float64(rep.PacingLag.P99), "lag-p99-ns")
	b.ReportMetric(float64(rep.Corrected.P50), "corrected-p50-ns")
	b.ReportMetric(float64(rep.Uncorrected.P50), "uncorrected-p50-ns")
	b.ReportMetric(rep.Cores(), "generator-cores")
	b.ReportMetric(0, "ns/op")
}
