package bench

import (
	"errors"
	"flag"
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

// TestMeasureAsGoTest: the metrics come in the order go test prints them
// (by unit), the -test.benchtime flag is left as it was, and an error at a
// later count ends the measurement with that error.
func TestMeasureAsGoTest(t *testing.T) {
	testing.Init()
	before := flag.Lookup("test.benchtime").Value.String()
	res, err := Measure(func(tm Timer, n int) error {
		tm.ReportMetric(2, "zeta/op")
		tm.ReportMetric(1, "alpha/op")
		return nil
	}, time.Microsecond)
	if err != nil || len(res.Metrics) != 2 || res.Metrics[0].Unit != "alpha/op" || res.Metrics[1].Unit != "zeta/op" {
		t.Fatalf("metrics %+v, %v", res.Metrics, err)
	}
	if after := flag.Lookup("test.benchtime").Value.String(); after != before {
		t.Fatalf("-test.benchtime %s after Measure, %s before", after, before)
	}
	boom := errors.New("boom")
	calls := 0
	_, err = Measure(func(tm Timer, n int) error {
		if calls++; n > 1 {
			return boom
		}
		time.Sleep(time.Microsecond)
		return nil
	}, time.Hour)
	if !errors.Is(err, boom) || calls != 2 {
		t.Fatalf("err %v after %d calls", err, calls)
	}
}
