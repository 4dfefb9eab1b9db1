package loadresult

import (
	"bytes"
	"testing"
)

// FuzzRead reads arbitrary files as merge does: never a panic, and what
// it accepts writes back and reads again the same. The seed corpus in
// testdata/fuzz/FuzzRead holds files load -out and load -sweep -out
// wrote, whole and cut.
func FuzzRead(f *testing.F) {
	f.Add([]byte("a log line\n"))
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
			if _, err := MergeGenerators([]Result{r, again[0]}); err != nil {
				t.Fatal(err)
			}
		}
	})
}
