package loadresult

import (
	"bytes"
	"testing"
	"time"
)

// FuzzRead reads arbitrary files as merge does: never a panic, and what
// it accepts writes back and reads again the same. The seed corpus in
// testdata/fuzz/FuzzRead holds files load -out and load -sweep -out
// wrote, whole and cut; a line with a series is added here. A series
// it accepts adds up to its result.
func FuzzRead(f *testing.F) {
	f.Add([]byte("a log line\n"))
	f.Add([]byte(line(f, withSeries(f, "s", t0, 2500*time.Millisecond, time.Second, []int64{100, 200, 300}, 1))))
	f.Fuzz(func(t *testing.T, data []byte) {
		rs, err := Read("fuzz", bytes.NewReader(data))
		if err != nil && bytes.Contains([]byte(err.Error()), []byte("\n")) {
			t.Fatalf("a message of more than one line: %q", err)
		}
		for _, r := range rs {
			var b bytes.Buffer
			if err := r.Write(&b); err != nil {
				t.Fatal(err)
			}
			again, err := Read("again", &b)
			if err != nil || len(again) != 1 || again[0].CorrectedHist.TotalCount() != r.CorrectedHist.TotalCount() {
				t.Fatalf("a result read back as %d results, %v", len(again), err)
			}
			if r.Series != nil && (r.Series.Check(r) != nil || again[0].Series == nil || len(again[0].Series.Points) != len(r.Series.Points)) {
				t.Fatalf("a series read back as %+v", again[0].Series)
			}
			if _, err := MergeGenerators([]Result{r, again[0]}); err != nil {
				t.Fatal(err)
			}
		}
	})
}
