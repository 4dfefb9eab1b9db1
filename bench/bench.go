// Package bench holds loopbench's workloads as plain functions that take
// a configured loop (or nothing, for the baselines), run n operations and
// time only those through a Timer, so that `go test -bench` and the CLI
// run the same code. The matrix of workloads × variants is in
// bench_test.go; names and units are described in names.go.
package bench

import (
	"github.com/loopbench/loopbench"
)

// Timer is the part of *testing.B a workload uses.
type Timer interface {
	ResetTimer()
	StartTimer()
	StopTimer()
	ReportMetric(n float64, unit string)
}

// drive runs l until n operations are done: each iteration one driver
// callback calls ops(k) for a batch of up to batch operations and then
// schedules itself again, so a batch costs one loop iteration, as in a
// busy asyncio program. Only RunForever is timed.
func drive(t Timer, l *loopbench.Loop, n, batch int, ops func(k int)) error {
	left := n
	var driver func()
	driver = func() {
		k := min(batch, left)
		left -= k
		ops(k)
		if left > 0 {
			l.CallSoon(driver)
		} else {
			l.CallSoon(l.Stop)
		}
	}
	l.CallSoon(driver)
	t.ResetTimer()
	err := l.RunForever()
	t.StopTimer()
	return err
}
