package report

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestTildeWhereTheTestCannotTell: a column whose runs interleave with the
// default's shows ~, not its median ratio; a column apart from it shows
// ×ratio (bold in Markdown); three runs give no interval and say so.
func TestTildeWhereTheTestCannotTell(t *testing.T) {
	var b strings.Builder
	b.WriteString("goos: linux\n")
	same := []string{"100", "104", "98", "107", "95", "101", "110", "93"}
	near := []string{"103", "97", "108", "99", "112", "94", "100", "105"} // median 1.02x, interleaved
	far := []string{"150", "152", "149", "151", "153", "148", "150", "151"}
	for i := range same {
		b.WriteString("BenchmarkW/ready=ringbuffer/timers=heap4ary/selector=epoll/x=1 1 " + same[i] + " ns/op\n")
		b.WriteString("BenchmarkW/ready=deque/timers=heap4ary/selector=epoll/x=1 1 " + near[i] + " ns/op\n")
		b.WriteString("BenchmarkW/ready=ringbuffer/timers=heap2ary/selector=epoll/x=1 1 " + far[i] + " ns/op\n")
	}
	for _, v := range []string{"10", "11", "12"} {
		b.WriteString("BenchmarkW/ready=ringbuffer/timers=heap4ary/selector=epoll/x=2 1 " + v + " ns/op\n")
	}
	path := filepath.Join(t.TempDir(), "raw.txt")
	os.WriteFile(path, []byte(b.String()), 0o644)
	rep, err := Read([]string{path}, Options{Default: "ready=ringbuffer/timers=heap4ary/selector=epoll"})
	if err != nil {
		t.Fatal(err)
	}
	var md strings.Builder
	if err := rep.WriteMarkdown(&md); err != nil {
		t.Fatal(err)
	}
	row := func(label string) string {
		for _, l := range strings.Split(md.String(), "\n") {
			if strings.HasPrefix(l, "| "+label+" |") {
				return l
			}
		}
		t.Fatalf("no row %s in\n%s", label, md.String())
		return ""
	}
	r1 := row("x=1")
	if !strings.Contains(r1, " ~ ") || !strings.Contains(r1, "**×1.50**") || strings.Contains(r1, "×1.0") {
		t.Errorf("row x=1: %s", r1)
	}
	if r2 := row("x=2"); !strings.Contains(r2, "(n=3)") || strings.Contains(r2, "∞") {
		t.Errorf("row x=2: %s", r2)
	}
}

// TestColumnsNamedByWhatDiffers: two runs' files differ in their path,
// commit, command and seed at once; their columns are named by one of
// them, shortly (the commit), not by every whole value. Two files of one
// commit are named by the part of their paths that differs.
func TestColumnsNamedByWhatDiffers(t *testing.T) {
	dir := t.TempDir()
	write := func(rel, commit, command string) string {
		p := filepath.Join(dir, rel)
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, []byte("commit: "+commit+"\ncommand: "+command+"\nseed: "+commit[:3]+"\nBenchmarkW/x=1 1 10 ns/op\nBenchmarkW/x=1 1 11 ns/op\n"), 0o644)
		return p
	}
	a := write("results/2026-11-24-vm-aaaaaaa/raw.txt", "aaaaaaaaaaaaaaaaaaaa", "loopbench run -quick")
	b := write("results/2026-11-24-vm-bbbbbbb/raw.txt", "bbbbbbbbbbbbbbbbbbbb", "loopbench run -count 10")
	rep, err := Read([]string{a, b}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	h := strings.Join(rep.Tables[0].Header(), " | ")
	if h != "case | commit=aaaaaaaaaaaa… | commit=bbbbbbbbbbbb…" {
		t.Errorf("header %q", h)
	}
	c := write("other/run1/raw.txt", "cccccccccccccccccccc", "x")
	d := write("other/run2/raw.txt", "cccccccccccccccccccc", "x")
	rep, err = Read([]string{c, d}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if h := strings.Join(rep.Tables[0].Header(), " | "); h != "case | run1 | run2" {
		t.Errorf("header %q", h)
	}
}

// TestTerminalWidth: on a narrow terminal a table keeps the columns that
// fit and says how many more summary.md has; width 0 keeps them all.
func TestTerminalWidth(t *testing.T) {
	var b strings.Builder
	for _, v := range []string{"ringbuffer/timers=heap4ary", "deque/timers=heap4ary", "ringbuffer/timers=heap2ary", "deque/timers=heap2ary", "ringbuffer/timers=wheel"} {
		for i := range 6 {
			fmt.Fprintf(&b, "BenchmarkW/ready=%s/selector=epoll/x=1 1 %d ns/op\n", v, 100+i)
		}
	}
	path := filepath.Join(t.TempDir(), "raw.txt")
	os.WriteFile(path, []byte(b.String()), 0o644)
	rep, err := Read([]string{path}, Options{Default: "ready=ringbuffer/timers=heap4ary/selector=epoll"})
	if err != nil {
		t.Fatal(err)
	}
	var narrow, wide strings.Builder
	rep.WriteTextWidth(&narrow, 60)
	rep.WriteTextWidth(&wide, 0)
	for _, l := range strings.Split(narrow.String(), "\n") {
		if strings.HasPrefix(l, "x=1") && len(l) > 60 {
			t.Errorf("line wider than 60: %q", l)
		}
	}
	if !strings.Contains(narrow.String(), "more columns in summary.md") || strings.Contains(wide.String(), "more columns") {
		t.Fatalf("narrow:\n%s\nwide:\n%s", narrow.String(), wide.String())
	}
}
