package report

import (
	"os"
	"path/filepath"
	"testing"
)

// TestReadSweepsKneeTyped: a sweep's knee, whether it is a lower bound,
// its note, the generator's ceiling and the steps left out are read from
// the knee line's own keys, never from its text: a reworded text changes
// nothing, and a line without the keys has none of them.
func TestReadSweepsKneeTyped(t *testing.T) {
	steps := "goos: linux\nBenchmarkLoad/label=a/conns=1/rate=100-2\t100\t100 req/s\nBenchmarkLoad/label=a/conns=1/rate=200-2\t200\t200 req/s\n"
	typed := "knee-lower-bound: true\nknee-note: the generator was CPU-bound at 400 req/s\nknee-ceiling: 400\nknee-left-out: 1\n"
	for _, c := range []struct {
		text, keys string
		want       SweepSeries
	}{
		{"knee at least 200 req/s: the generator was CPU-bound at 400 req/s", typed, SweepSeries{Knee: 200, LowerBound: true, KneeNote: "the generator was CPU-bound at 400 req/s", Ceiling: 400, LeftOut: 1}},
		{"knee 200 req/s: reworded", typed, SweepSeries{Knee: 200, LowerBound: true, KneeNote: "the generator was CPU-bound at 400 req/s", Ceiling: 400, LeftOut: 1}},
		{"knee at least 200 req/s: every step up to the last was met", "knee-lower-bound: false\n", SweepSeries{Knee: 200}},
		{"knee at least 200 req/s: every step up to the last was met", "", SweepSeries{Knee: 200}},
	} {
		path := filepath.Join(t.TempDir(), "sweep.txt")
		knee := "knee: " + c.text + "\n" + c.keys + "BenchmarkLoadKnee/label=a/conns=1/slo=1ms\t1\t200 knee-req/s\n"
		if err := os.WriteFile(path, []byte(steps+knee), 0o644); err != nil {
			t.Fatal(err)
		}
		series, slo, err := ReadSweeps([]string{path})
		if err != nil || len(series) != 1 || slo.String() != "1ms" {
			t.Fatalf("%q: %d series at %v, %v", c.text, len(series), slo, err)
		}
		s := series[0]
		if s.Knee != c.want.Knee || s.LowerBound != c.want.LowerBound || s.KneeNote != c.want.KneeNote || s.Ceiling != c.want.Ceiling || s.LeftOut != c.want.LeftOut || len(s.Points) != 2 {
			t.Errorf("%q with %q: %+v, want %+v", c.text, c.keys, s, c.want)
		}
	}
}
