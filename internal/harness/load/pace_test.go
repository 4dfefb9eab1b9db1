package load

import (
	"context"
	"fmt"
	"runtime"
	"slices"
	"testing"
	"time"
)

// waits are ways to wait for a send time, as baselines of the
// generator's pacing in the same binary: the runtime's timer (about a
// millisecond late on an idle Linux machine, whose runtime waits in
// epoll_wait in whole milliseconds) and the generator's own, a loop
// timer (CallLater) on a locked thread with the generator's timer slack.
// Each makes its waiter, and what ends it, outside the timed waits.
var waits = []struct {
	name  string
	start func(b *testing.B) (wait func(time.Duration), done func())
}{
	{"runtime-timer", func(*testing.B) (func(time.Duration), func()) { return time.Sleep, func() {} }},
	{"loop-timer", loopWaiter},
}

// loopWaiter waits on a loop of its own, as a generator's loop does.
func loopWaiter(b *testing.B) (func(time.Duration), func()) {
	runtime.LockOSThread()
	prepareThread(-1)
	l, err := newLoop()
	if err != nil {
		b.Fatal(err)
	}
	wait := func(d time.Duration) {
		l.CallLater(d, l.Stop)
		l.RunForever()
	}
	return wait, func() { l.Close(); runtime.UnlockOSThread() }
}

// BenchmarkWait reports, for each way to wait and a wait of 200 µs and
// of 2 ms, how late it returns (late-p50-ns, late-p99-ns) and the CPU it
// costs (cpu-ns/wait: the process's user and system time per wait). Run
// on an idle machine:
//
//	go test -run '^$' -bench Wait -benchtime 2000x -count 5 ./internal/harness/load
func BenchmarkWait(b *testing.B) {
	for _, w := range waits {
		for _, us := range []int{200, 2000} {
			b.Run(fmt.Sprintf("impl=%s/us=%d", w.name, us), func(b *testing.B) {
				wait, done := w.start(b)
				defer done()
				d := time.Duration(us) * time.Microsecond
				late := make([]time.Duration, 0, b.N)
				cpu0 := processCPU()
				for b.Loop() {
					start := time.Now()
					wait(d)
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
//	go test -run '^$' -bench Pacing -benchtime 5000x ./internal/harness/load
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
	b.ReportMetric(float64(rep.CPUPerRequest()), "generator-cpu-ns/req")
	b.ReportMetric(0, "ns/op")
}
