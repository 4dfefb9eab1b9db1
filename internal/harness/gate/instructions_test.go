package gate

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loopbench/loopbench/internal/harness/callgrind"
)

// TestWriteCountsEveryRepeat: every repeat of every benchmark is written
// as a line of exact units, one whose repeats disagree too (reported for
// its side): none is set aside. A benchmark counted at widened windows
// is listed once, with its iterations.
func TestWriteCountsEveryRepeat(t *testing.T) {
	dir := t.TempDir()
	steady := callgrind.Result{Task: callgrind.Task{Name: "Steady", Iters: [2]int{0, 100}},
		PerOp: []callgrind.Counts{{Ir: 100}, {Ir: 100}}, Deterministic: true, SyscallsAgree: true}
	flaky := callgrind.Result{Task: callgrind.Task{Name: "Flaky", Iters: [2]int{0, 100}},
		PerOp: []callgrind.Counts{{Ir: 50}, {Ir: 51}, {Ir: 50}}, Spread: 0.02}
	wide := callgrind.Result{Task: callgrind.Task{Name: "Wide", Iters: [2]int{0, 1000}},
		PerOp: []callgrind.Counts{{Ir: 70}, {Ir: 70}}, Deterministic: true, Widened: true}
	res := &Result{}
	s := &Side{Name: "head", Commit: "c", CommitTime: "2026-11-28T10:00:00Z", Path: filepath.Join(dir, "head.txt")}
	if err := writeCounts(s, nil, []callgrind.Result{steady, flaky, wide}, res); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(s.Path)
	if err != nil {
		t.Fatal(err)
	}
	text := string(b)
	if strings.Count(text, "BenchmarkFlaky 100 ") != 3 || strings.Count(text, "BenchmarkWide 1000 ") != 2 || strings.Count(text, "BenchmarkSteady 100 ") != 2 ||
		!strings.Contains(text, "51 instructions/op") || !strings.Contains(text, "Unit instructions/op assume=exact") ||
		!strings.Contains(text, "commit: c\ncommit-time: 2026-11-28T10:00:00Z\nside: head\n") {
		t.Fatalf("written:\n%s", text)
	}
	if len(res.Nondeterministic) != 1 || res.Nondeterministic[0] != (Nondeterministic{"head", "Flaky", 0.02}) {
		t.Fatalf("reported %+v", res.Nondeterministic)
	}
	base := &Side{Name: "base", Commit: "c", Path: filepath.Join(dir, "base.txt")}
	if err := writeCounts(base, nil, []callgrind.Result{wide}, res); err != nil {
		t.Fatal(err)
	}
	if len(res.Widened) != 1 || res.Widened[0] != (Widened{"Wide", 1000}) {
		t.Fatalf("widened %+v", res.Widened)
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

// TestWriteSidesKeepsWhatWasMeasured: after an interrupt the benchmarks
// measured on every repeat and count are written and the unfinished one
// left out; without an interrupt an unmeasured benchmark fails the gate.
func TestWriteSidesKeepsWhatWasMeasured(t *testing.T) {
	dir := t.TempDir()
	base := &Side{Name: "base", Commit: "b", Path: filepath.Join(dir, "base.txt")}
	head := &Side{Name: "head", Commit: "h", Path: filepath.Join(dir, "head.txt")}
	done := func(name string) callgrind.Result {
		return callgrind.Result{Task: callgrind.Task{Name: name, Iters: [2]int{10, 110}}, PerOp: []callgrind.Counts{{Ir: 100}, {Ir: 100}}, Deterministic: true}
	}
	unfinished := callgrind.Result{Task: callgrind.Task{Name: "B"}, Err: errors.New("B: not measured")}
	results := []callgrind.Result{done("A"), done("B"), done("A"), unfinished}
	owner := []*Side{base, base, head, head}
	sides := []*Side{base, head}
	if _, err := writeSides(Config{}, nil, sides, results, owner, false, &Result{}); err == nil || !strings.Contains(err.Error(), "head: B: not measured") {
		t.Fatalf("uninterrupted: %v", err)
	}
	n, err := writeSides(Config{}, nil, sides, results, owner, true, &Result{})
	if err != nil || n != 3 {
		t.Fatalf("interrupted: wrote %d, %v", n, err)
	}
	for _, c := range []struct {
		path string
		want []string
	}{{base.Path, []string{"BenchmarkA", "BenchmarkB"}}, {head.Path, []string{"BenchmarkA"}}} {
		b, err := os.ReadFile(c.path)
		if err != nil {
			t.Fatal(err)
		}
		got := strings.Count(string(b), "\nBenchmark")
		for _, w := range c.want {
			if !strings.Contains(string(b), w+" ") {
				t.Errorf("%s lacks %s:\n%s", c.path, w, b)
			}
		}
		if got != 2*len(c.want) { // a line per repeat
			t.Errorf("%s: %d benchmark lines, want %d:\n%s", c.path, got, 2*len(c.want), b)
		}
	}
}

// TestBaselineIters: head is counted at a saved baseline's iteration
// counts: each benchmark's iterations read back from the file writeCounts
// wrote, as a window's count or a difference's two.
func TestBaselineIters(t *testing.T) {
	dir := t.TempDir()
	s := &Side{Name: "head", Commit: "c", CommitTime: "2026-11-28T10:00:00Z", Path: filepath.Join(dir, "head.txt")}
	rs := []callgrind.Result{
		{Task: callgrind.Task{Name: "A/p=1000", Iters: [2]int{0, 20000}}, PerOp: []callgrind.Counts{{Ir: 10}, {Ir: 10}}},
		{Task: callgrind.Task{Name: "B", Iters: callgrind.IterCounts(500)}, PerOp: []callgrind.Counts{{Ir: 10}, {Ir: 10}}},
	}
	if err := writeCounts(s, nil, rs, &Result{}); err != nil {
		t.Fatal(err)
	}
	iters, err := baselineIters(s.Path)
	if err != nil {
		t.Fatal(err)
	}
	if iters["A/p=1000"] != 20000 || iters["B"] != 500 || len(iters) != 2 {
		t.Fatalf("iterations %v", iters)
	}
	if got := taskIters(true, iters["A/p=1000"]); got != [2]int{0, 20000} {
		t.Errorf("window at the baseline's 20000: %v", got)
	}
	if got := taskIters(false, iters["B"]); got != rs[1].Iters {
		t.Errorf("difference at the baseline's 500: %v, want %v", got, rs[1].Iters)
	}
	if _, err := baselineIters(filepath.Join(dir, "missing.txt")); err == nil {
		t.Error("a missing baseline read")
	}
}

// TestKnown: a listing is sized natively only when some benchmark has no
// iteration count yet, under its package's name where benchmarks are
// named with their package.
func TestKnown(t *testing.T) {
	iters := map[string]int{"A": 100, "B": 20, "example.com/p.C": 3}
	if !known([]callgrind.Listed{{Name: "A", Iters: 1}, {Name: "B", Iters: 1}}, iters, "") {
		t.Error("every name known: not known")
	}
	if known([]callgrind.Listed{{Name: "A", Iters: 1}, {Name: "C", Iters: 1}}, iters, "") {
		t.Error("C has no count: known")
	}
	if !known([]callgrind.Listed{{Name: "C", Iters: 1}}, iters, "example.com/p") || known([]callgrind.Listed{{Name: "C", Iters: 1}}, iters, "example.com/q") {
		t.Error("C of example.com/p: known only there")
	}
}

// TestBenchtime: windows are sized by their own benchtime when one is
// set, the difference of two processes always by the gate's.
func TestBenchtime(t *testing.T) {
	cfg := Config{Benchtime: "20ms"}
	cfg.Callgrind.WindowBenchtime = "2ms"
	if benchtime(cfg, true) != "2ms" || benchtime(cfg, false) != "20ms" {
		t.Errorf("windows %s, difference %s", benchtime(cfg, true), benchtime(cfg, false))
	}
	cfg.Callgrind.WindowBenchtime = ""
	if benchtime(cfg, true) != "20ms" {
		t.Errorf("windows without their own: %s", benchtime(cfg, true))
	}
}

// TestListTasksOnce: an A/A gate's one binary is listed once, for both
// sides, and what its harness skipped is named once, with the reason.
func TestListTasksOnce(t *testing.T) {
	dir := t.TempDir()
	runs := filepath.Join(dir, "runs")
	bin := filepath.Join(dir, "fake.test")
	script := "#!/bin/sh\necho run >> " + runs + "\n" +
		"echo 'BenchmarkA 1000 10 ns/op'\necho 'BenchmarkSkip'\necho '    x_test.go:9: not countable: here'\necho '--- SKIP: BenchmarkSkip'\n"
	if err := os.WriteFile(bin, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	bins := []*binary{{pkg: ".", path: bin, dir: dir}}
	base, head := &Side{Name: "base", Binary: bin, bins: bins}, &Side{Name: "head", Binary: bin, bins: bins}
	res := &Result{Base: base, Head: head}
	tasks, owner, method, err := listTasks(t.Context(), Config{Bench: ".", Benchtime: "20ms"}, []*Side{base, head}, res)
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(runs); string(b) != "run\n" {
		t.Errorf("listed %d times, want once", strings.Count(string(b), "run"))
	}
	if len(tasks) != 2 || owner[0] != base || owner[1] != head || tasks[0].Name != "A" || tasks[1].Name != "A" || method != MethodDifference {
		t.Errorf("tasks %+v, method %s", tasks, method)
	}
	if want := []callgrind.Skipped{{Name: "Skip", Reason: "not countable: here"}}; len(res.NotCounted) != 1 || res.NotCounted[0] != want[0] {
		t.Errorf("not counted %v, want %v", res.NotCounted, want)
	}
}

// TestWriteCountsNamesPackages: where more than one package is gated,
// each result is written under its package's pkg line and the reports
// name it with its package; a baseline read back keys its iterations so.
func TestWriteCountsNamesPackages(t *testing.T) {
	dir := t.TempDir()
	res := &Result{pkgOf: map[string]string{"a.test": "example.com/m/a", "b.test": "example.com/m/b"}}
	of := func(bin string, ir float64, det bool) callgrind.Result {
		return callgrind.Result{Task: callgrind.Task{Binary: callgrind.Binary{Path: bin}, Name: "X", Iters: [2]int{0, 10}},
			PerOp: []callgrind.Counts{{Ir: ir}, {Ir: ir}}, Deterministic: det}
	}
	s := &Side{Name: "head", Commit: "c", Path: filepath.Join(dir, "head.txt")}
	if err := writeCounts(s, nil, []callgrind.Result{of("a.test", 100, true), of("b.test", 200, false)}, res); err != nil {
		t.Fatal(err)
	}
	text, _ := os.ReadFile(s.Path)
	a, b := strings.Index(string(text), "pkg: example.com/m/a\n"), strings.Index(string(text), "pkg: example.com/m/b\n")
	if a < 0 || b < a || strings.Count(string(text), "BenchmarkX 10 ") != 4 {
		t.Fatalf("written:\n%s", text)
	}
	if len(res.Nondeterministic) != 1 || res.Nondeterministic[0].Name != "example.com/m/b.X" {
		t.Errorf("reported %+v", res.Nondeterministic)
	}
	iters, err := baselineIters(s.Path)
	if err != nil || len(iters) != 2 || iters["example.com/m/a.X"] != 10 || iters["example.com/m/b.X"] != 10 {
		t.Errorf("baseline iterations %v %v", iters, err)
	}
}
