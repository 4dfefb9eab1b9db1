package callgrind

import (
	"errors"
	"math"
	"os"
	"strconv"
	"strings"
	"testing"
)

func parseFile(t *testing.T, name string) Counts {
	t.Helper()
	f, err := os.Open("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	c, err := Parse(f)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestParseGolden: two real outputs of CallSoon's batch mode (100 and 1100
// iterations, with the cache simulation and --collect-systime; cut to their
// header, a few cost lines and the totals) give the summary's events, and
// per operation their difference over 1000.
func TestParseGolden(t *testing.T) {
	a, b := parseFile(t, "batch.100.callgrind"), parseFile(t, "batch.1100.callgrind")
	want := Counts{82680346, 15520792, 11228324, 20125, 33835, 156820, 7375, 7516, 152680, 543}
	if a != want {
		t.Fatalf("batch.100: %+v, want %+v", a, want)
	}
	op := b.PerOp(a, 1000)
	if math.Abs(op.Ir-351.712) > 1e-9 || math.Abs(op.SysCount-0.002) > 1e-9 {
		t.Fatalf("per op %+v", op)
	}
	// est-cycles: L1 hits + 5 LL hits + 35 memory.
	l1miss := op.I1mr + op.D1mr + op.D1mw
	ram := op.ILmr + op.DLmr + op.DLmw
	if got, want := op.EstCycles(), op.Ir+op.Dr+op.Dw-l1miss+5*(l1miss-ram)+35*ram; math.Abs(got-want) > 1e-9 {
		t.Fatalf("est-cycles %v, want %v", got, want)
	}
}

// TestParseRefuses: a file without events or instruction counts.
func TestParseRefuses(t *testing.T) {
	for _, text := range []string{"", "events: Ir\n", "events: sysCount\nsummary: 4\n", "events: Ir\nsummary: x\n"} {
		if _, err := Parse(strings.NewReader(text)); err == nil {
			t.Errorf("%q parsed", text)
		}
	}
	// Without instructions, typed: a window that counted nothing.
	if _, err := Parse(strings.NewReader("events: sysCount\nsummary: 4\n")); !errors.Is(err, ErrNoInstructions) {
		t.Errorf("no instructions: %v, want ErrNoInstructions", err)
	}
}

// TestMean: the repeats' mean.
func TestMean(t *testing.T) {
	r := Result{PerOp: []Counts{{Ir: 100, SysCount: 1}, {Ir: 102, SysCount: 3}}}
	if m := r.Mean(); m.Ir != 101 || m.SysCount != 2 {
		t.Fatalf("mean %+v", m)
	}
}

// TestResultMemory: B/op and allocs/op agree only when every repeat's
// line gives the same values.
func TestResultMemory(t *testing.T) {
	task := Task{Name: "X", Iters: [2]int{10, 110}}
	counts := [][2]Counts{{{Ir: 1000}, {Ir: 2000}}, {{Ir: 1000}, {Ir: 2000}}}
	line := func(b int) string { return "BenchmarkX 110 5 ns/op " + strconv.Itoa(b) + " B/op 0 allocs/op" }
	same := result(task, counts, []string{line(3), line(3)}, nil, Options{MaxSpread: 0.005})
	if !same.MemoryAgree || same.BytesPerOp != 3 || same.PerOp[0].Ir != 10 || !same.Deterministic {
		t.Fatalf("agreeing repeats: %+v", same)
	}
	if differ := result(task, counts, []string{line(0), line(3)}, nil, Options{MaxSpread: 0.005}); differ.MemoryAgree {
		t.Fatalf("0 and 3 B/op agree: %+v", differ)
	}
	if missing := result(task, counts, []string{line(3), ""}, nil, Options{}); missing.Err == nil {
		t.Fatal("a repeat without its line measured")
	}
}
