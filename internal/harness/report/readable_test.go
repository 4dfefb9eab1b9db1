package report

import (
	"bytes"
	"fmt"
	"html"
	"os"
	"path/filepath"
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

// TestTwoRunsNamedOnce: two runs' files each get one name, the path
// elements that tell them apart: the columns are "runA" and "runB", the
// head names each run's file once, and the busy banner names the run
// the machine was busy in.
func TestTwoRunsNamedOnce(t *testing.T) {
	dir := t.TempDir()
	var files []string
	for _, run := range []struct{ name, busy string }{{"runA", "yes (rounds 1 past 0.20 cores)"}, {"runB", "no"}} {
		var b strings.Builder
		fmt.Fprintf(&b, "machine-busy: %s\nseed: %d\n", run.busy, len(files))
		for i := range 6 {
			fmt.Fprintf(&b, "BenchmarkTimers/ready=ringbuffer/timers=heap4ary/selector=epoll/op=churn/p=1000 1000 %d ns/op\n", 100+i)
		}
		p := filepath.Join(dir, run.name, "raw.txt")
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		files = append(files, p)
	}
	rep, err := Read(files, Options{Default: def})
	if err != nil {
		t.Fatal(err)
	}
	if h := strings.Join(rep.Tables[0].Header(), " | "); h != "case | runA | runB" {
		t.Errorf("header %q, want the runs' names", h)
	}
	want := "The machine was busy during run runA (rounds 1 past 0.20 cores). Other work's noise is in its figures."
	if len(rep.Banners) != 1 || rep.Banners[0] != want {
		t.Errorf("banners %q, want %q", rep.Banners, want)
	}
	var md bytes.Buffer
	if err := rep.WriteMarkdown(&md); err != nil {
		t.Fatal(err)
	}
	for i, f := range files {
		if n := strings.Count(md.String(), f); n != 1 {
			t.Errorf("summary.md names %s %d times, want once", f, n)
		}
		if line := fmt.Sprintf("- run %s: %s\n", []string{"runA", "runB"}[i], f); !strings.Contains(md.String(), line) {
			t.Errorf("summary.md has no line %q:\n%s", line, md.String())
		}
	}
	for _, bad := range []string{".file", "file=", " | no"} {
		if strings.Contains(md.String(), bad) {
			t.Errorf("summary.md holds %q:\n%s", bad, md.String())
		}
	}
}
