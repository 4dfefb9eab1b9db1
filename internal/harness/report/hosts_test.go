package report

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

var hosts = []string{"testdata/hosts/vm-a/raw.txt", "testdata/hosts/vm-b/raw.txt"}

// TestTwoMachinesGolden: two runs of two hosts read as one table per
// workload and unit with a column per machine (the host names) and the
// ratio between them; the seed and the machine's state per round are in
// neither rows nor columns.
func TestTwoMachinesGolden(t *testing.T) {
	rep, err := Read(hosts, Options{Default: def})
	if err != nil {
		t.Fatal(err)
	}
	var md, text bytes.Buffer
	if err := rep.WriteMarkdown(&md); err != nil {
		t.Fatal(err)
	}
	if err := rep.WriteTextWidth(&text, MaxWidth); err != nil {
		t.Fatal(err)
	}
	golden(t, "hosts.md", md.String())
	golden(t, "hosts.txt", text.String())
	tb := find(t, rep, "Timers", "sec/op")
	if h := strings.Join(tb.Header(), " | "); h != "case | vm-a | vm-b" {
		t.Errorf("header %q, want the two hosts", h)
	}
	for _, r := range tb.Rows {
		if strings.Contains(r.Label, "seed") || strings.Contains(r.Label, "machine") {
			t.Errorf("row %q keyed by run metadata", r.Label)
		}
	}
}

// TestRowsSortedNumerically: p=1000 before p=10000 before p=100000, the
// default variant's rows first.
func TestRowsSortedNumerically(t *testing.T) {
	rep, err := Read(hosts, Options{Default: def})
	if err != nil {
		t.Fatal(err)
	}
	var labels []string
	for _, r := range find(t, rep, "Timers", "sec/op").Rows {
		labels = append(labels, r.Label)
	}
	want := []string{
		"ringbuffer/heap4ary/epoll/p=1000",
		"ringbuffer/heap4ary/epoll/p=10000",
		"ringbuffer/heap4ary/epoll/p=100000",
	}
	if !slices.Equal(labels[:3], want) {
		t.Errorf("rows %q, want first %q", labels, want)
	}
}

// TestSummaryWidth: every printed line of a report of many variants fits
// in MaxWidth columns.
func TestSummaryWidth(t *testing.T) {
	for _, files := range [][]string{hosts, {"testdata/run.txt"}, {"testdata/units.txt"}} {
		rep, err := Read(files, Options{Default: def})
		if err != nil {
			t.Fatal(err)
		}
		var b bytes.Buffer
		rep.WriteTextWidth(&b, MaxWidth)
		for _, l := range strings.Split(b.String(), "\n") {
			if n := utf8.RuneCountInString(l); n > MaxWidth {
				t.Errorf("%v: a line of %d columns: %q", files, n, l)
			}
		}
	}
}

// TestOneColumnOrderPerWorkload: the tables of one workload list their
// columns in one order, whatever order the (shuffled) results came in.
func TestOneColumnOrderPerWorkload(t *testing.T) {
	var b strings.Builder
	line := func(sel, rest, vals string) {
		fmt.Fprintf(&b, "BenchmarkEcho/ready=ringbuffer/timers=heap4ary/selector=%s/%s-2 1 %s\n", sel, rest, vals)
	}
	for range 6 {
		line("select", "conns=1", "100 ns/op")
		line("poll", "conns=1", "100 ns/op")
		line("epoll", "conns=1", "100 ns/op")
		line("poll", "conns=10", "100 ns/op 5 req/s")
		line("select", "conns=10", "100 ns/op 5 req/s")
		line("epoll", "conns=10", "100 ns/op 5 req/s")
	}
	path := filepath.Join(t.TempDir(), "raw.txt")
	os.WriteFile(path, []byte("Unit req/s better=higher\n"+b.String()), 0o644)
	rep, err := Read([]string{path}, Options{Default: def})
	if err != nil {
		t.Fatal(err)
	}
	var orders []string
	for _, tb := range rep.Tables {
		orders = append(orders, strings.Join(tb.Header(), " | "))
	}
	if len(orders) != 2 || orders[0] != orders[1] {
		t.Errorf("one workload's tables order their columns differently: %q", orders)
	}
}

// TestWarningsWrapped: a long unreadable line's message is wrapped to the
// summary's width too.
func TestWarningsWrapped(t *testing.T) {
	rep := &Report{Warnings: []string{strings.Repeat("results/some/long/path/raw.txt:12: ", 6) + "missing value"}}
	var b bytes.Buffer
	rep.WriteTextWidth(&b, MaxWidth)
	for _, l := range strings.Split(b.String(), "\n") {
		if n := utf8.RuneCountInString(l); n > MaxWidth {
			t.Errorf("a line of %d columns: %q", n, l)
		}
	}
	if !strings.Contains(b.String(), "missing value") {
		t.Errorf("the warning is lost:\n%s", b.String())
	}
}
