package bench

import (
	"runtime"
	"time"
)

// Result is one measurement of a case, as a benchmark line reports it.
type Result struct {
	N           int
	NsPerOp     float64
	BytesPerOp  float64
	AllocsPerOp float64
	Metrics     []Metric // custom metrics, in the order reported
}

// Metric is a custom metric a workload reported.
type Metric struct {
	Value float64
	Unit  string
}

// timer is the Timer of Measure: the elapsed time and allocations between
// ResetTimer/StartTimer and StopTimer, as testing.B counts them.
type timer struct {
	running        bool
	start          time.Time
	elapsed        time.Duration
	startMallocs   uint64
	startBytes     uint64
	mallocs, bytes uint64
	metrics        []Metric
}

func (t *timer) readMem() (uint64, uint64) {
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.Mallocs, m.TotalAlloc
}

func (t *timer) StartTimer() {
	if !t.running {
		t.startMallocs, t.startBytes = t.readMem()
		t.start = time.Now()
		t.running = true
	}
}

func (t *timer) StopTimer() {
	if t.running {
		t.elapsed += time.Since(t.start)
		m, b := t.readMem()
		t.mallocs += m - t.startMallocs
		t.bytes += b - t.startBytes
		t.running = false
	}
}

func (t *timer) ResetTimer() {
	if t.running {
		t.startMallocs, t.startBytes = t.readMem()
		t.start = time.Now()
	}
	t.elapsed, t.mallocs, t.bytes = 0, 0, 0
}

func (t *timer) ReportMetric(v float64, unit string) {
	for i := range t.metrics {
		if t.metrics[i].Unit == unit {
			t.metrics[i].Value = v
			return
		}
	}
	t.metrics = append(t.metrics, Metric{v, unit})
}

// Measure runs run with a growing operation count, as go test does, until
// one run takes at least d, and returns that run's result. Before each run
// it collects the garbage, as go test's runN does, so that a run does not
// pay for the garbage its setup or the previous case left.
func Measure(run func(Timer, int) error, d time.Duration) (Result, error) {
	n := 1
	for {
		t := &timer{}
		collect()
		t.StartTimer()
		err := run(t, n)
		t.StopTimer()
		if err != nil {
			return Result{}, err
		}
		if t.elapsed >= d || n >= 1e9 {
			return t.result(n), nil
		}
		n = nextN(n, t.elapsed, d)
	}
}

// collect is runtime.GC; tests count its calls.
var collect = runtime.GC

// nextN predicts the count that takes d from n taking elapsed, growing by
// at least one and at most 100 times, with 20 % headroom, as go test does.
func nextN(n int, elapsed, d time.Duration) int {
	per := max(elapsed.Nanoseconds()/int64(n), 1)
	next := int(d.Nanoseconds() / per)
	next += next / 5
	return min(max(next, n+1), 100*n, 1e9)
}

func (t *timer) result(n int) Result {
	return Result{
		N:           n,
		NsPerOp:     float64(t.elapsed.Nanoseconds()) / float64(n),
		BytesPerOp:  float64(t.bytes) / float64(n),
		AllocsPerOp: float64(t.mallocs) / float64(n),
		Metrics:     t.metrics,
	}
}
