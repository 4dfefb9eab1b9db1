package report

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// writeCommits writes one run per commit on one host: Timers on two heaps
// at two sizes, the later commits faster.
func writeCommits(t *testing.T, commits []string) []string {
	t.Helper()
	dir := t.TempDir()
	var paths []string
	for k, c := range commits {
		var b strings.Builder
		fmt.Fprintf(&b, "machine-host: vm\ncpu: Intel(R) Xeon(R) Processor\ncommit: %s\nseed: %d\n", c, 100+k)
		for round := range 6 {
			for _, heap := range []string{"heap4ary", "heap2ary"} {
				for _, p := range []int{100000, 1000} {
					ns := float64(p/1000+50) * (1 - 0.1*float64(k)) * (1 + 0.01*float64(round%3))
					fmt.Fprintf(&b, "BenchmarkTimers/ready=ringbuffer/timers=%s/selector=epoll/op=churn/p=%d-2 1000 %.2f ns/op 0 B/op 0 allocs/op\n", heap, p, ns)
				}
			}
		}
		path := filepath.Join(dir, c[:7], "raw.txt")
		os.MkdirAll(filepath.Dir(path), 0o755)
		if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, path)
	}
	return paths
}

// TestTrendOverCommits: runs of three commits on one machine give a
// trend table (a column per commit in the order given, a row per variant
// and case) and a trend plot (the commits along x, a line per variant).
func TestTrendOverCommits(t *testing.T) {
	commits := []string{"cccccccccccc1", "aaaaaaaaaaaa2", "bbbbbbbbbbbb3"}
	paths := writeCommits(t, commits)
	rep, err := Read(paths, Options{Default: def})
	if err != nil {
		t.Fatal(err)
	}
	var md bytes.Buffer
	rep.WriteMarkdown(&md)
	golden(t, "trend.md", strings.ReplaceAll(md.String(), filepath.Dir(filepath.Dir(paths[0])), "DIR"))
	tb := find(t, rep, "Timers", "sec/op")
	if !tb.trend() {
		t.Fatalf("columns %+v are not a trend", tb.Cols)
	}
	figs, err := rep.Figures()
	if err != nil {
		t.Fatal(err)
	}
	texts := svgTexts(t, figs[0].Name, figs[0].SVG)
	for _, w := range []string{"cccccccc", "aaaaaaaa", "bbbbbbbb", "heap4ary", "heap2ary", "p=1000", "ns/op, lower is better", "Timers: ns/op (lower is better); every row ringbuffer/epoll/op=churn"} {
		if !slices.Contains(texts, w) {
			t.Errorf("trend plot has no text %q; its texts: %q", w, texts)
		}
	}
}

// TestTrendAcrossAKernelUpgrade: the machine's kernel changed between two
// of the commits: the columns are commit and machine, still a trend; a
// report of two machines at one commit is not.
func TestTrendAcrossAKernelUpgrade(t *testing.T) {
	paths := writeCommits(t, []string{"cccccccccccc1", "aaaaaaaaaaaa2", "bbbbbbbbbbbb3"})
	b, _ := os.ReadFile(paths[2])
	os.WriteFile(paths[2], append([]byte("kernel: 6.19\n"), b...), 0o644)
	rep, err := Read(paths, Options{Default: def})
	if err != nil {
		t.Fatal(err)
	}
	if tb := find(t, rep, "Timers", "sec/op"); !tb.trend() || len(tb.Cols) != 3 || strings.Contains(tb.Cols[2].Label, "6.19") {
		t.Errorf("columns %+v are not a trend of the three commits", tb.Cols)
	}
	if len(rep.Machines) != 2 {
		t.Errorf("machines %v, want the two kernels described", rep.Machines)
	}
	rep, err = Read(hosts, Options{Default: def})
	if err != nil {
		t.Fatal(err)
	}
	if tb := find(t, rep, "Timers", "sec/op"); tb.trend() {
		t.Errorf("two machines' columns %+v taken for a trend", tb.Cols)
	}
}
