package report

import (
	"bytes"
	"encoding/xml"
	"errors"
	"flag"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

var update = flag.Bool("update", false, "rewrite the golden files")

const def = "ready=ringbuffer/timers=heap4ary/selector=epoll"

func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if got != string(want) {
		t.Errorf("%s differs (run with -update to accept):\n%s", path, got)
	}
}

// TestSummaryGolden: summary.md of a run's raw.txt, a scripts/bench.sh
// file, a plain go test -bench file of another module, and a file with
// custom units.
func TestSummaryGolden(t *testing.T) {
	for _, name := range []string{"run", "benchsh", "gotest", "units"} {
		rep, err := Read([]string{filepath.Join("testdata", name+".txt")}, Options{Default: def})
		if err != nil {
			t.Fatal(err)
		}
		var b bytes.Buffer
		if err := rep.WriteMarkdown(&b); err != nil {
			t.Fatal(err)
		}
		golden(t, name+".md", b.String())
	}
}

// TestColumnsAndRows: the default variant comes first, baselines last; a
// scripts/bench.sh file's per-round config lines do not split it; a
// custom unit heads its cases instead of sec/op.
func TestColumnsAndRows(t *testing.T) {
	rep, err := Read([]string{"testdata/run.txt"}, Options{Default: def})
	if err != nil {
		t.Fatal(err)
	}
	tb := find(t, rep, "Timers", "sec/op")
	var cols []string
	for _, c := range tb.Cols {
		cols = append(cols, c.Label)
	}
	if want := []string{"heap4ary", "heap4ary/cancel=lazy", "heap2ary", "impl=afterfunc"}; !slices.Equal(cols, want) {
		t.Fatalf("Timers columns %q, want %q", cols, want)
	}
	if !tb.Cols[3].Baseline || tb.Cols[0].Baseline {
		t.Fatalf("baseline flags %+v", tb.Cols)
	}
	if len(tb.Rows) != 3 || tb.Rows[0].Label != "p=1000" || !strings.HasSuffix(tb.Title(), "; every row op=schedule-cancel") {
		t.Fatalf("Timers rows %+v", tb.Rows)
	}
	if c := tb.Cell(0, 0); c == nil || len(c.Values) != 6 {
		t.Fatalf("a cell holds %v, want the 6 rounds", c)
	}
	units, err := Read([]string{"testdata/units.txt"}, Options{Default: def})
	if err != nil {
		t.Fatal(err)
	}
	find(t, units, "Timers", "cpu-sec/timer")
	find(t, units, "Echo", "req/s")
	for _, tb := range units.Tables {
		if tb.Unit == "sec/op" {
			t.Errorf("a sec/op table of cases that have units of their own: %s", tb.Title())
		}
	}
	bs, err := Read([]string{"testdata/benchsh.txt"}, Options{Default: def})
	if err != nil {
		t.Fatal(err)
	}
	if io := find(t, bs, "IOChain", "us/write"); len(io.Cols) != 2 || len(io.Rows) != 6 {
		t.Fatalf("IOChain: %d columns %d rows, want 2 and 6", len(io.Cols), len(io.Rows))
	}
}

func find(t *testing.T, rep *Report, workload, unit string) *Table {
	t.Helper()
	for _, tb := range rep.Tables {
		if tb.Workload == workload && tb.Unit == unit {
			return tb
		}
	}
	t.Fatalf("no %s %s table", workload, unit)
	return nil
}

// svgTexts parses an SVG as XML and returns its text elements.
func svgTexts(t *testing.T, name string, doc []byte) []string {
	t.Helper()
	d := xml.NewDecoder(bytes.NewReader(doc))
	var texts []string
	inText := false
	for {
		tok, err := d.Token()
		if errors.Is(err, io.EOF) {
			return texts
		}
		if err != nil {
			t.Fatalf("%s does not parse as XML: %v", name, err)
		}
		switch tok := tok.(type) {
		case xml.StartElement:
			inText = tok.Name.Local == "text"
		case xml.CharData:
			if inText {
				texts = append(texts, strings.TrimSpace(string(tok)))
			}
		case xml.EndElement:
			inText = false
		}
	}
}

// TestFiguresAndHTML: every SVG and the HTML parse as XML; every plot
// labels its axes with units and names the variants; scaling curves
// label their x axis with the size they sweep.
func TestFiguresAndHTML(t *testing.T) {
	rep, err := Read([]string{"testdata/run.txt", "testdata/units.txt"}, Options{Default: def})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	written, err := rep.WriteDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][]string{
		"CallSoon-sec-op.svg":           {"ns/op, lower is better", "ringbuffer", "deque", "impl=chan (baseline)"},
		"Timers-sec-op.svg":             {"ns/op, lower is better", "pending timers (p)", "heap4ary", "heap2ary", "impl=afterfunc (baseline)"},
		"Timers-cpu-sec-timer.svg":      {"cpu-ns/timer, lower is better", "timers scheduled from cold (k)", "heap4ary", "impl=afterfunc (baseline)"},
		"Echo-req-s.svg":                {"k req/s, higher is better", "epoll", "poll", "impl=gonet (baseline)"},
		"Echo-rtt-p99-sec.svg":          {"rtt-p99-µs, lower is better", "epoll", "impl=gonet (baseline)"},
		"Timers-schedule-sec-timer.svg": {"schedule-ns/timer, lower is better"},
	}
	for name, texts := range want {
		doc, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Errorf("%s: %v (wrote %v)", name, err, written)
			continue
		}
		got := svgTexts(t, name, doc)
		for _, w := range texts {
			if !slices.Contains(got, w) {
				t.Errorf("%s has no text %q; its texts: %q", name, w, got)
			}
		}
	}
	page, err := os.ReadFile(filepath.Join(dir, "report.html"))
	if err != nil {
		t.Fatal(err)
	}
	checkHTML(t, page, len(rep.Tables))
}

// checkHTML checks that report.html parses as XML, holds one plot per
// table and loads nothing from elsewhere.
func checkHTML(t *testing.T, page []byte, tables int) {
	t.Helper()
	d := xml.NewDecoder(bytes.NewReader(page))
	d.Strict = true
	d.Entity = xml.HTMLEntity
	svgs := 0
	for {
		tok, err := d.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("report.html does not parse: %v", err)
		}
		if se, ok := tok.(xml.StartElement); ok && se.Name.Local == "svg" {
			svgs++
		}
	}
	if svgs != tables {
		t.Fatalf("report.html holds %d plots for %d tables", svgs, tables)
	}
	for _, forbidden := range []string{"<script", "http://", "https://"} {
		if bytes.Contains(page, []byte(forbidden)) && !bytes.Contains(page, []byte("http://www.w3.org/")) {
			t.Errorf("report.html is not self-contained: it holds %q", forbidden)
		}
	}
	if bytes.Contains(page, []byte("<script")) {
		t.Error("report.html holds a script")
	}
}

// TestBadInput: an empty file and a file without benchmarks are errors;
// a truncated line is a warning and the rest is reported.
func TestBadInput(t *testing.T) {
	dir := t.TempDir()
	empty := filepath.Join(dir, "empty.txt")
	os.WriteFile(empty, nil, 0o644)
	nobench := filepath.Join(dir, "nobench.txt")
	os.WriteFile(nobench, []byte("goos: linux\nPASS\n"), 0o644)
	for _, p := range []string{empty, nobench} {
		if _, err := Read([]string{p}, Options{}); !errors.Is(err, ErrNothing) {
			t.Errorf("%s: %v, want ErrNothing", p, err)
		}
	}
	run, _ := os.ReadFile("testdata/run.txt")
	trunc := filepath.Join(dir, "trunc.txt")
	os.WriteFile(trunc, append(run, []byte("BenchmarkCallSoon/impl=chan/mode=batch/batch=1000-2\t100000\t7")...), 0o644)
	rep, err := Read([]string{trunc}, Options{Default: def})
	if err != nil || len(rep.Warnings) != 1 || !strings.Contains(rep.Warnings[0], "trunc.txt:") {
		t.Fatalf("truncated: %v, warnings %q", err, rep.Warnings)
	}
	if find(t, rep, "CallSoon", "sec/op") == nil {
		t.Fatal("the readable part was not reported")
	}
}

// TestSpectrum: the percentile plot parses, labels its axes and the tail
// percentiles, and names both measures.
func TestSpectrum(t *testing.T) {
	var a, b []SpectrumPoint
	for k := range 41 {
		x := 1.0
		for range k {
			x *= 1.2589254117941673 // ten points a decade
		}
		q := 1 - 1/x
		a = append(a, SpectrumPoint{q, time.Duration(100+k*20) * time.Microsecond})
		b = append(b, SpectrumPoint{q, time.Duration(100+k*5) * time.Microsecond})
	}
	svg, err := Spectrum("echo", []SpectrumSeries{{"corrected", a}, {"uncorrected", b}})
	if err != nil {
		t.Fatal(err)
	}
	texts := svgTexts(t, "spectrum", svg)
	for _, w := range []string{"percentile", "latency (µs)", "90%", "99%", "99.9%", "99.99%", "corrected", "uncorrected", "echo"} {
		if !slices.Contains(texts, w) {
			t.Errorf("no text %q in %q", w, texts)
		}
	}
	if _, err := Spectrum("empty", []SpectrumSeries{{"corrected", nil}}); err == nil {
		t.Error("a spectrum of nothing drew")
	}
}
