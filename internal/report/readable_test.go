package report

import (
	"bytes"
	"html"
	"strings"
	"testing"
)

// TestRatioNoteOnce: summary.md and report.html explain the ratios once,
// above the first table, not under each of them.
func TestRatioNoteOnce(t *testing.T) {
	rep, err := Read([]string{"testdata/run.txt", "testdata/units.txt"}, Options{Default: def})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Tables) < 3 {
		t.Fatalf("%d tables, want several", len(rep.Tables))
	}
	var md, page bytes.Buffer
	if err := rep.WriteMarkdown(&md); err != nil {
		t.Fatal(err)
	}
	if err := rep.WriteHTML(&page, nil); err != nil {
		t.Fatal(err)
	}
	for name, doc := range map[string]string{"summary.md": md.String(), "report.html": html.UnescapeString(page.String())} {
		if n := strings.Count(doc, TestNote); n != 1 {
			t.Errorf("%s holds the ratio note %d times, want once", name, n)
		}
		first := strings.Index(doc, rep.Tables[0].Title())
		if i := strings.Index(doc, TestNote); first < 0 || i > first {
			t.Errorf("%s: the ratio note at %d, the first table at %d: want it above", name, i, first)
		}
	}
}
