package bench

import (
	"testing"
	"time"
)

func TestMeasureGrowsUntilDuration(t *testing.T) {
	var ns []int
	res, err := Measure(func(tm Timer, n int) error {
		ns = append(ns, n)
		tm.ResetTimer()
		time.Sleep(time.Duration(n) * 10 * time.Microsecond)
		tm.ReportMetric(float64(n), "things")
		return nil
	}, 5*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	if ns[0] != 1 || len(ns) < 2 || res.N != ns[len(ns)-1] {
		t.Fatalf("counts %v, result N %d", ns, res.N)
	}
	for i := 1; i < len(ns); i++ {
		if ns[i] <= ns[i-1] || ns[i] > 100*ns[i-1] {
			t.Fatalf("counts %v do not grow by 1..100x", ns)
		}
	}
	if res.NsPerOp < 10e3 || len(res.Metrics) != 1 || res.Metrics[0].Value != float64(res.N) {
		t.Fatalf("result %+v", res)
	}
}

func TestMeasureCountsAllocs(t *testing.T) {
	var sink [][]byte
	res, err := Measure(func(tm Timer, n int) error {
		tm.ResetTimer()
		for range n {
			sink = append(sink[:0], make([]byte, 64))
		}
		tm.StopTimer()
		return nil
	}, time.Millisecond)
	if err != nil || res.AllocsPerOp < 0.9 || res.BytesPerOp < 60 {
		t.Fatalf("allocs/op %v, B/op %v, err %v", res.AllocsPerOp, res.BytesPerOp, err)
	}
}
