package load

import (
	"context"
	"fmt"
	"runtime"
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

// waits are the ways a generator can wait for a send time: its own
// (sleepFor) and, as baselines in the same binary, the runtime's timer
// (what it used before; about a millisecond late on an idle Linux
// machine, whose runtime waits in epoll_wait in whole milliseconds) and
// a runtime timer to 1.5 ms before the time, then a spin that yields.
var waits = []struct {
	name string
	wait func(time.Duration)
}{
	{"sleepFor", sleepFor},
	{"runtime-timer", time.Sleep},
	{"timer-then-spin", func(d time.Duration) {
		until := time.Now().Add(d)
		if d > 1500*time.Microsecond {
			time.Sleep(d - 1500*time.Microsecond)
		}
		for time.Now().Before(until) {
			runtime.Gosched()
		}
	}},
}

// BenchmarkWait reports, for each way to wait and a wait of 200 µs and
// of 2 ms, how late it returns (late-p50-ns, late-p99-ns) and the CPU it
// costs (cpu-ns/wait: the process's user and system time per wait). Run
// on an idle machine:
//
//	go test -run '^$' -bench Wait -benchtime 2000x -count 5 ./internal/load
func BenchmarkWait(b *testing.B) {
	for _, w := range waits {
		for _, us := range []int{200, 2000} {
			b.Run(fmt.Sprintf("impl=%s/us=%d", w.name, us), func(b *testing.B) {
				d := time.Duration(us) * time.Microsecond
				late := make([]time.Duration, 0, b.N)
				cpu0 := processCPU()
				for b.Loop() {
					start := time.Now()
					w.wait(d)
					late = append(late, time.Since(start)-d)
				}
				cpu := processCPU() - cpu0
				slices.Sort(late)
				b.ReportMetric(float64(late[len(late)/2]), "late-p50-ns")
				b.ReportMetric(float64(late[len(late)*99/100]), "late-p99-ns")
				b.ReportMetric(float64(cpu)/float64(len(late)), "cpu-ns/wait")
				b.ReportMetric(0, "ns/op")
			})
		}
	}
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
