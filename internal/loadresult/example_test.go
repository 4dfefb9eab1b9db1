package loadresult_test

import (
	"fmt"
	"time"

	"github.com/loopbench/loopbench/internal/loadresult"
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
