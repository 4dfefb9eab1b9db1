package callgrind

import (
	"cmp"
	"context"
	"errors"
	"math"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"

	"github.com/loopbench/loopbench/internal/harness/overlay"
	"github.com/loopbench/loopbench/internal/measure/valgrind"
)

// TestWindows counts testdata/windowbench's benchmarks by the windows of
// the testing package the overlay patches: two benchmarks in one
// process, and one of them at other counts (one iteration too: go test's
// only pass). Per op is the same at 1000 and 4000, twice the work counts
// twice, and the setup's 2·10⁶ iterations (2000 per op at 1000) are not
// in it.
func TestWindows(t *testing.T) {
	if !valgrind.Supported {
		t.Skip("client requests are written for amd64 and arm64 only: windows not counted")
	}
	v, err := Find()
	if err != nil {
		t.Skip("valgrind not installed (Debian package valgrind): windows not counted")
	}
	bin := buildWindowbench(t)
	if !HasWindows(bin) {
		t.Fatal("HasWindows: false for a binary that counts windows")
	}
	// Counted as a whole process (a gate whose other side has no
	// windows), the testing package leaves the counts alone: setup
	// included.
	whole, _, err := v.Count(context.Background(), Binary{Path: bin, Dir: t.TempDir()}, "Spin", 1000, t.TempDir())
	if err != nil || whole.Ir < 2e6 {
		t.Fatalf("the whole process: %v instructions, %v", whole.Ir, err)
	}
	b := Binary{Path: bin, Dir: t.TempDir(), Window: true}
	tasks := []Task{{b, "Spin", [2]int{0, 1000}}, {b, "SpinTwice", [2]int{0, 1000}}, {b, "Spin", [2]int{0, 4000}}, {b, "Spin", [2]int{0, 1}}}
	// A window leaves the runtime's monitor thread out, whose share
	// grows with the window's wall time on a loaded machine. What is left
	// that time moves is the runtime's work on the benchmark's thread:
	// sysmon preempting the benchmark's goroutine after 10 ms of wall
	// time, and what the scheduler runs then (about 1,600 instructions,
	// 0.2 % of Spin's window at 1000; seen in 3 of 30 such windows on a
	// loaded machine, never in 30 of one iteration). Repeats that
	// disagree are counted again, and two of them must agree: within 1 %
	// (the setup left out is 2,000 instructions an op), and for a window
	// of one iteration (Spin's 707 and the window's own 46, counted
	// exactly in those 30) within 100.
	cpu := ProcessCPU()
	rs := v.Measure(context.Background(), tasks, Options{Repeat: 2, MaxRepeat: 3, Jobs: 2, MaxSpread: 0.01, Tmp: t.TempDir()}, nil)
	if ProcessCPU() <= cpu {
		t.Errorf("ProcessCPU %v after counting, %v before", ProcessCPU(), cpu)
	}
	for i, r := range rs {
		tol := func(a, b float64) bool { return math.Abs(a/b-1) <= 0.01 }
		if r.Iters[1] == 1 {
			tol = func(a, b float64) bool { return math.Abs(a-b) <= 100 }
		}
		if r.Err != nil || !twoAgree(r.PerOp, tol) {
			t.Fatalf("%s at %d: %+v", r.Name, r.Iters[1], r)
		}
		slices.SortFunc(rs[i].PerOp, func(a, b Counts) int { return cmp.Compare(a.Ir, b.Ir) })
	}
	spin, twice, spin4 := rs[0].PerOp[0].Ir, rs[1].PerOp[0].Ir, rs[2].PerOp[0].Ir
	t.Logf("instructions per op: Spin %v at 1000, %v at 4000; SpinTwice %v", spin, spin4, twice)
	if spin < 100 || spin > 2000 {
		t.Errorf("Spin: %v instructions per op of 100 multiply-adds (the setup's would be 8000 more)", spin)
	}
	if r := spin4 / spin; r < 0.97 || r > 1.03 {
		t.Errorf("Spin per op %v at 1000, %v at 4000", spin, spin4)
	}
	if r := twice / spin; r < 1.9 || r > 2.1 {
		t.Errorf("SpinTwice %v per op, Spin %v: ratio %.3f, want 2", twice, spin, r)
	}
	// At one iteration the window is go test's only pass: counted, its one
	// operation and the window's fixed cost, without the setup. (Each
	// figure is its least repeat's: a preemption only adds.)
	if one := rs[3].PerOp[0].Ir; one < spin || one > spin+5000 {
		t.Errorf("Spin at 1: %v instructions, want its %v per op and the window's fixed cost", one, spin)
	}
}

// twoAgree says two of the repeats' instruction counts agree by tol.
func twoAgree(perOp []Counts, tol func(a, b float64) bool) bool {
	for i := range perOp {
		for j := range i {
			if tol(perOp[i].Ir, perOp[j].Ir) {
				return true
			}
		}
	}
	return false
}

// TestListSizesWindows: listed to size windows, a binary with windows runs
// the work they will count (valgrind.SizingEnv), so a benchmark that
// natively sleeps 10 ms an op fits many iterations in 20 ms; listed for
// the difference of two counts, it runs natively and fits one or two. A
// benchmark its harness skips is listed as skipped, with its reason.
func TestListSizesWindows(t *testing.T) {
	bin := buildWindowbench(t)
	iters := map[bool]int{}
	for _, window := range []bool{false, true} {
		ls, skipped, err := Binary{Path: bin, Dir: t.TempDir(), Window: window}.List(context.Background(), "^Benchmark(Waits|RealClock)$", "20ms")
		// RealClock skips itself when listed to size windows, and only then.
		want := []Skipped{{"RealClock", windowbenchSkip}}
		if !window {
			want = nil
		}
		if err != nil || len(ls) != 2-len(want) || ls[0].Name != "Waits" {
			t.Fatalf("window %v: %v, %v", window, ls, err)
		}
		iters[window] = ls[0].Iters
		if !slices.Equal(skipped, want) {
			t.Errorf("window %v: skipped %q, want %q", window, skipped, want)
		}
	}
	if iters[false] > 2 || iters[true] < 100 {
		t.Fatalf("iterations in 20 ms: %d plain, %d sized for windows", iters[false], iters[true])
	}
}

// buildWindowbench builds testdata/windowbench with the gate's overlay
// of the testing package (without it where the toolchain does not take
// it: a GOARCH without client requests), and returns the test binary's
// path.
func buildWindowbench(t *testing.T) string {
	t.Helper()
	tc, err := overlay.Current(".")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	args := []string{"test", "-c"}
	if ov, err := overlay.Write(dir, tc); err == nil {
		args = append(args, "-overlay", ov)
	}
	bin := filepath.Join(dir, "windowbench.test")
	if out, err := exec.Command("go", append(args, "-o", bin, "./testdata/windowbench")...).CombinedOutput(); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	return bin
}

// windowbenchSkip is testdata/windowbench's BenchmarkRealClock's reason.
const windowbenchSkip = "not countable: waits on the real clock"

// TestParseListing reads go test's verbose listing: results, and skips
// with the first line of their log, without its file:line prefix.
func TestParseListing(t *testing.T) {
	out := `goos: linux
BenchmarkTimers
BenchmarkTimers/a=1
BenchmarkTimers/a=1         	    2000	       500.0 ns/op	       0 B/op	       0 allocs/op
BenchmarkTimers/impl=afterfunc/op=churn/p=1000
    bench_test.go:53: not countable: follows the real clock: judge it by wall time
        a second line
--- SKIP: BenchmarkTimers/impl=afterfunc/op=churn/p=1000
BenchmarkTimers/impl=x
--- SKIP: BenchmarkTimers/impl=x
BenchmarkTimers/b=2-4       	      10	       100.0 ns/op
BenchmarkOther
    no prefix here
--- SKIP: BenchmarkOther
PASS
`
	ls, skipped := parseListing(out)
	if want := []Listed{{"Timers/a=1", 2000}, {"Timers/b=2-4", 10}}; !slices.Equal(ls, want) {
		t.Errorf("listed %v, want %v", ls, want)
	}
	want := []Skipped{{"Timers/impl=afterfunc/op=churn/p=1000", "not countable: follows the real clock: judge it by wall time"}, {"Timers/impl=x", ""}, {"Other", "no prefix here"}}
	if !slices.Equal(skipped, want) {
		t.Errorf("skipped %q, want %q", skipped, want)
	}
}

// TestWindowCountsRefuses takes each benchmark's one window with
// instructions, and refuses a window that is missing, dumped twice (two
// windowing harnesses in one binary: the second counts nothing) or empty.
func TestWindowCountsRefuses(t *testing.T) {
	out := []byte("BenchmarkA \t 100\t 5 ns/op\nBenchmarkB \t 100\t 7 ns/op\n")
	win := func(name string, ir float64) Dump {
		return Dump{Reason: valgrind.WindowReason(name, 100), Counts: Counts{Ir: ir}}
	}
	counts, lines, err := windowCounts([]Dump{{Counts: Counts{Ir: 9}}, win("A", 500), win("B", 700)}, out, []string{"A", "B"}, 100)
	if err != nil || counts["A"].Ir != 500 || counts["B"].Ir != 700 || lines["B"] != "BenchmarkB \t 100\t 7 ns/op" {
		t.Fatalf("two windows: %v %v %v", counts, lines, err)
	}
	for _, tc := range []struct {
		what  string
		dumps []Dump
	}{
		{"missing", []Dump{win("A", 500)}},
		{"twice", []Dump{win("A", 500), win("B", 700), win("B", 0)}},
		{"empty", []Dump{win("A", 500), win("B", 0)}},
	} {
		_, _, err := windowCounts(tc.dumps, out, []string{"A", "B"}, 100)
		if !errors.Is(err, ErrBadWindow) || errors.Is(err, ErrEmptyWindow) != (tc.what == "empty") {
			t.Errorf("%s: %v, want ErrBadWindow (and ErrEmptyWindow for the empty one)", tc.what, err)
		}
	}
}

// TestRetryEmpty counts an empty window again, at most emptyRetries more
// times, and a window dumped twice not at all.
func TestRetryEmpty(t *testing.T) {
	for _, tc := range []struct {
		errs  []error
		calls int
		fails bool
	}{
		{[]error{nil}, 1, false},
		{[]error{ErrEmptyWindow, nil}, 2, false},
		{[]error{ErrEmptyWindow, ErrEmptyWindow, ErrEmptyWindow, nil}, 3, true},
		{[]error{ErrBadWindow, nil}, 1, true},
	} {
		calls := 0
		_, err := retryEmpty(func() (int, error) { calls++; return calls, tc.errs[calls-1] })
		if calls != tc.calls || (err != nil) != tc.fails {
			t.Errorf("errors %v: %d calls, %v; want %d calls, failing %v", tc.errs, calls, err, tc.calls, tc.fails)
		}
	}
}
