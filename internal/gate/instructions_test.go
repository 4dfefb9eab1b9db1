package gate

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loopbench/loopbench/internal/callgrind"
)

// TestWriteCountsUnjudged: a benchmark not deterministic on one side is
// written on neither, reported for that side alone, and the others are
// written with exact units.
func TestWriteCountsUnjudged(t *testing.T) {
	dir := t.TempDir()
	counts := func(ir float64) []callgrind.Counts { return []callgrind.Counts{{Ir: ir}, {Ir: ir}} }
	steady := callgrind.Result{Task: callgrind.Task{Name: "Steady", Iters: [2]int{10, 110}}, PerOp: counts(100), Deterministic: true, SyscallsAgree: true}
	flaky := callgrind.Result{Task: callgrind.Task{Name: "Flaky", Iters: [2]int{10, 110}}, PerOp: counts(50), Deterministic: true}
	flakyHead := flaky
	flakyHead.Deterministic, flakyHead.Spread = false, 0.03
	unjudged := map[string]bool{"Flaky": true}
	res := &Result{}
	for _, side := range []struct {
		name string
		rs   []callgrind.Result
	}{{"base", []callgrind.Result{steady, flaky}}, {"head", []callgrind.Result{steady, flakyHead}}} {
		s := &Side{Name: side.name, Commit: "c", Path: filepath.Join(dir, side.name+".txt")}
		if err := writeCounts(s, nil, side.rs, unjudged, res); err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(s.Path)
		if err != nil {
			t.Fatal(err)
		}
		text := string(b)
		if strings.Contains(text, "BenchmarkFlaky") || !strings.Contains(text, "BenchmarkSteady") || !strings.Contains(text, "Unit instructions/op assume=exact") {
			t.Fatalf("%s:\n%s", side.name, text)
		}
	}
	if len(res.Nondeterministic) != 1 || res.Nondeterministic[0] != (Nondeterministic{"head", "Flaky", 0.03}) {
		t.Fatalf("reported %+v", res.Nondeterministic)
	}
}

// TestMemoryValues: memory is written only where the repeats agree, and
// B/op only from one allocation per operation up.
func TestMemoryValues(t *testing.T) {
	units := func(r callgrind.Result) string {
		var out []string
		for _, v := range memoryValues(r) {
			out = append(out, v.Unit)
		}
		return strings.Join(out, ",")
	}
	cases := []struct {
		r    callgrind.Result
		want string
	}{
		{callgrind.Result{MemoryAgree: false, BytesPerOp: 64, AllocsPerOp: 2}, ""},
		{callgrind.Result{MemoryAgree: true, BytesPerOp: 3, AllocsPerOp: 0}, "allocs/op"},
		{callgrind.Result{MemoryAgree: true, BytesPerOp: 64, AllocsPerOp: 2}, "B/op,allocs/op"},
	}
	for _, c := range cases {
		if got := units(c.r); got != c.want {
			t.Errorf("%+v: %q, want %q", c.r, got, c.want)
		}
	}
}
