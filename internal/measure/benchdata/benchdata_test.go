package benchdata

import (
	"errors"
	"strings"
	"testing"

	"golang.org/x/perf/benchfmt"
)

// TestNonFiniteLineIsMalformed: a line with a NaN or infinite value is
// left out whole and named as malformed; the finite lines stay.
func TestNonFiniteLineIsMalformed(t *testing.T) {
	in := "BenchmarkX-2\t10\tNaN ns/op\n" +
		"BenchmarkX-2\t10\t5 ns/op\t2 B/op\n" +
		"BenchmarkX-2\t10\t6 ns/op\t+Inf B/op\n" +
		"BenchmarkX-2\t10\t7 ns/op\n"
	s, err := Read(strings.NewReader(in), "a.txt", nil)
	if err != nil {
		t.Fatal(err)
	}
	if s.Results != 2 || len(s.Raw) != 2 {
		t.Fatalf("results %d, raw %d: want the two finite lines", s.Results, len(s.Raw))
	}
	if len(s.Malformed) != 2 || !strings.Contains(s.Malformed[0], "a.txt:1:") || !strings.Contains(s.Malformed[1], "a.txt:3:") ||
		!strings.Contains(s.Malformed[0], "not a finite number") {
		t.Fatalf("malformed %q: want lines 1 and 3 named", s.Malformed)
	}
	for _, smp := range s.Samples {
		if smp.Unit == "ns/op" && len(smp.Values) != 2 {
			t.Fatalf("ns/op values %v: want 5 and 7", smp.Values)
		}
	}
	if _, err := Read(strings.NewReader("BenchmarkX-2\t1\tNaN ns/op\n"), "b.txt", nil); !errors.Is(err, ErrNoResults) {
		t.Fatalf("a file of only non-finite lines: %v, want ErrNoResults", err)
	}
}

// TestWritten: a tidied unit reads back as written, an untidied one as
// it is, a missing one as absent.
func TestWritten(t *testing.T) {
	r := benchfmt.NewReader(strings.NewReader("BenchmarkX 10 1500 ns/op 2000 p99-ns 7 req/s\n"), "x")
	if !r.Scan() {
		t.Fatal("no result read")
	}
	res, ok := r.Result().(*benchfmt.Result)
	if !ok {
		t.Fatalf("read %T, want a result", r.Result())
	}
	for _, c := range []struct {
		unit string
		want float64
		ok   bool
	}{{"ns/op", 1500, true}, {"p99-ns", 2000, true}, {"req/s", 7, true}, {"sec/op", 0, false}, {"B/op", 0, false}} {
		if got, ok := WrittenValue(res, c.unit); got != c.want || ok != c.ok {
			t.Errorf("WrittenValue(%s) = %v, %v; want %v, %v", c.unit, got, ok, c.want, c.ok)
		}
	}
}
