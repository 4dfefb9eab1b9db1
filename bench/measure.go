package bench

import (
	"flag"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"
)

// Result is one measurement of a case, as a benchmark line reports it.
type Result struct {
	N           int
	NsPerOp     float64
	BytesPerOp  float64
	AllocsPerOp float64
	Metrics     []Metric // custom metrics, by unit name as go test prints them
}

// Metric is a custom metric a workload reported.
type Metric struct {
	Value float64
	Unit  string
}

// benchtimeMu serializes Measure: testing.Benchmark reads its duration
// from the process's -test.benchtime flag.
var benchtimeMu sync.Mutex

// Measure runs run through testing.Benchmark, so that loopbench run sizes
// N exactly as go test -bench does (the same code: a run of 1, then counts
// predicted from the last run, growing at most 100 times, until one run
// lasts d; the garbage collected before each run), and returns the last
// run's result. testing.Benchmark takes its duration from the
// -test.benchtime flag only, so Measure registers the testing flags
// (testing.Init, as the testing package documents for programs that call
// Benchmark outside go test), sets the flag to d for the call and puts the
// old value back. An error from run fails the benchmark and is returned.
func Measure(run func(Timer, int) error, d time.Duration) (Result, error) {
	benchtimeMu.Lock()
	defer benchtimeMu.Unlock()
	testing.Init()
	f := flag.Lookup("test.benchtime")
	if f == nil {
		return Result{}, fmt.Errorf("measure: no -test.benchtime flag after testing.Init")
	}
	old := f.Value.String()
	if err := f.Value.Set(d.String()); err != nil {
		return Result{}, fmt.Errorf("measure: -test.benchtime %v: %w", d, err)
	}
	defer f.Value.Set(old)
	var runErr error
	r := testing.Benchmark(func(b *testing.B) {
		b.ReportAllocs()
		if err := run(b, b.N); err != nil {
			runErr = err
			b.Fail()
		}
	})
	if runErr != nil {
		return Result{}, runErr
	}
	return result(r), nil
}

// result is r per operation, with fractional B/op and allocs/op (go test
// prints them truncated to integers).
func result(r testing.BenchmarkResult) Result {
	n := float64(max(r.N, 1))
	res := Result{
		N:           r.N,
		NsPerOp:     float64(r.T.Nanoseconds()) / n,
		BytesPerOp:  float64(r.MemBytes) / n,
		AllocsPerOp: float64(r.MemAllocs) / n,
	}
	units := make([]string, 0, len(r.Extra))
	for u := range r.Extra {
		units = append(units, u)
	}
	slices.Sort(units)
	for _, u := range units {
		res.Metrics = append(res.Metrics, Metric{Value: r.Extra[u], Unit: u})
	}
	return res
}
