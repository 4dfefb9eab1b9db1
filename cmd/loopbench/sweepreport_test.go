package main

import (
	"path/filepath"
	"testing"
)

// TestSweepLowerBoundTyped: whether a sweep's knee is a lower bound is
// read from the knee line's load.LowerBoundKey, never from its text.
func TestSweepLowerBoundTyped(t *testing.T) {
	steps := "BenchmarkLoad/label=a/conns=1/rate=100-2\t100\t100 req/s\nBenchmarkLoad/label=a/conns=1/rate=200-2\t200\t200 req/s\n"
	for _, c := range []struct {
		key  string
		want bool
	}{{"knee-lower-bound: true\n", true}, {"knee-lower-bound: false\n", false}, {"", false}} {
		path := writeFile(t, "sweep.txt", machineA+steps+"knee: knee at least 200 req/s: every step up to the last was met\n"+c.key+
			"BenchmarkLoadKnee/label=a/conns=1/slo=1ms\t1\t200 knee-req/s\n")
		series, _, err := readSweeps([]string{filepath.Clean(path)})
		if err != nil || len(series) != 1 || series[0].LowerBound != c.want || series[0].KneeNote != "every step up to the last was met" {
			t.Errorf("key %q: %+v, %v; want lower bound %v", c.key, series, err, c.want)
		}
	}
}
