package report

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"
)

// FuzzReport builds a report from an arbitrary results file, as loopbench
// report does, and writes it: summary.md, the text table, the figures and
// report.html. Never a panic; Read fails only on a file without results;
// the tables of what it read always write (the figures may refuse values
// they cannot plot, such as infinities). Seeds: the files of the golden
// tests in testdata.
func FuzzReport(f *testing.F) {
	for _, name := range []string{"gotest.txt", "units.txt", "run.txt"} {
		b, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte("BenchmarkEcho/impl=asyncio/conns=1-2\t10\t5 ns/op\t3 req/s\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		path := filepath.Join(t.TempDir(), "raw.txt")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		rep, err := Read([]string{path}, Options{Default: def, Peers: []string{"asyncio", "libev"}})
		if err != nil {
			if !errors.Is(err, ErrNothing) {
				t.Fatalf("Read failed on a file with results: %v", err)
			}
			return
		}
		figs, err := rep.Figures()
		if err != nil {
			figs = nil
		}
		if err := rep.WriteMarkdown(io.Discard); err != nil {
			t.Fatalf("WriteMarkdown: %v", err)
		}
		if err := rep.WriteTextWidth(io.Discard, 80); err != nil {
			t.Fatalf("WriteTextWidth: %v", err)
		}
		if err := rep.WriteHTML(io.Discard, figs); err != nil {
			t.Fatalf("WriteHTML: %v", err)
		}
	})
}
