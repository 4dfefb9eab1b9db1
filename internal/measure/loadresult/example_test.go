package loadresult_test

import (
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/loopbench/loopbench/internal/measure/loadresult"
)

// Two generators' results merge into one: counts and CPU summed over the
// longest wall time, latencies from the merged histograms.
func ExampleMerge() {
	gen := func(lat time.Duration, n int64, cpu time.Duration) loadresult.Result {
		r := loadresult.Result{Requests: n, Scheduled: n, Answered: n, CPU: cpu, Wall: 2 * time.Second,
			CorrectedHist: loadresult.NewHistogram()}
		for range n {
			r.CorrectedHist.RecordValue(int64(lat))
		}
		r.Summarize()
		return r
	}
	m := loadresult.Merge(gen(100*time.Microsecond, 90, 400*time.Millisecond), gen(2*time.Millisecond, 10, 600*time.Millisecond))
	fmt.Println(m.Requests, "requests,", m.Cores(), "cores,", m.CPUPerRequest(), "CPU per request")
	for i, v := range m.Corrected.Values() {
		fmt.Printf("%s %v\n", loadresult.Percentiles[i].Name, v)
	}
	// Output:
	// 100 requests, 0.5 cores, 10ms CPU per request
	// p50 100.031µs
	// p90 100.031µs
	// p99 2.000895ms
	// p99.9 2.000895ms
	// max 2.000895ms
}

// A result as load's table prints it, then as the one JSON line of a
// result file, read back.
func ExampleResult_WriteText() {
	r := loadresult.Result{Label: "echo", Conns: 4, Size: 64, Requests: 1000, Scheduled: 1000, Answered: 1000,
		Elapsed: time.Second, Achieved: 1000, CPU: 100 * time.Millisecond, Wall: 1200 * time.Millisecond,
		CorrectedHist: loadresult.NewHistogram(), UncorrectedHist: loadresult.NewHistogram(), PacingLagHist: loadresult.NewHistogram()}
	for i := range int64(1000) {
		r.CorrectedHist.RecordValue(50_000 + 100*i)
		r.UncorrectedHist.RecordValue(50_000 + 100*i)
	}
	r.Summarize()
	r.WriteText(os.Stdout)

	var file strings.Builder
	r.Write(&file)
	back, err := loadresult.Read("gen.json", strings.NewReader("a log line\n"+file.String()))
	fmt.Println(len(back), "result read back:", back[0].Requests, "requests, p99", back[0].Corrected.P99, err)
	// Output:
	// echo: 1s over 4 connections of 64 bytes: 1000 req/s
	// the window's 1000 requests = 1000 answered + 0 timed out + 0 failed otherwise + 0 unsent, 0 errors
	//      latency     p50    p90    p99  p99.9    max
	//   round trip  99.9µs  140µs  149µs  150µs  150µs
	// generator CPU: 0.08 cores over 1.2s, 100µs per answered request; connections busy 0.10 of 4 on average
	// 1 result read back: 1000 requests, p99 148.991µs <nil>
}

// A run's benchmark name keeps its label in one name segment, so runs
// against two servers never merge.
func ExampleBenchName() {
	fmt.Println(loadresult.BenchName("http://h:80/", 1024, 10, 2500.5, 4))
	// Output:
	// Load/label=http:__h:80_/size=1024/conns=10/rate=2500.5-4
}
