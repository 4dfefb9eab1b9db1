package callgrind

import (
	"context"
	"fmt"
	"sync"
	"testing"
)

// fakeCounts counts synthetic processes: a window's instructions are 100
// per op, "Flaky" on binary "head" 1 % more on every second process of it,
// "Timed" 1,000 more on every second window of it (what time moves: a
// fixed amount a window, whatever its length), "Offset" on binary "head"
// 500 more in every window, "OffsetBig" on "head" 0.5 more per op.
type fakeCounts struct {
	mu        sync.Mutex
	processes int
	grouped   int // processes of more than one task
	flaky     int
	timed     map[string]int // per binary
	twice     int            // processes that counted one name twice
	// onCount, when set, sees every task counted, before its count.
	onCount func(Task)
}

func (f *fakeCounts) count(_ context.Context, tasks []Task, count int) (map[string]Counts, map[string]string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.processes++
	if len(tasks) > 1 {
		f.grouped++
	}
	seen := map[string]bool{}
	for _, t := range tasks {
		if seen[t.Name] {
			f.twice++
		}
		seen[t.Name] = true
	}
	counts, lines := map[string]Counts{}, map[string]string{}
	for _, t := range tasks {
		ir := 100.0
		if t.Name == "Flaky" && t.Binary.Path == "head" {
			f.flaky++
			if f.flaky%2 == 0 {
				ir = 101
			}
		}
		n := t.Iters[count]
		extra := 0.0
		if t.Name == "Timed" {
			if f.timed == nil {
				f.timed = map[string]int{}
			}
			f.timed[t.Binary.Path]++
			extra = float64(f.timed[t.Binary.Path]%2) * 1000
		}
		if t.Name == "Offset" && t.Binary.Path == "head" {
			extra = 500
		}
		if t.Name == "OffsetBig" && t.Binary.Path == "head" {
			extra = 0.5 * float64(n)
		}
		if f.onCount != nil {
			f.onCount(t)
		}
		counts[t.Name] = Counts{Ir: ir*float64(n) + extra}
		lines[t.Name] = fmt.Sprintf("Benchmark%s %d 1 ns/op 0 B/op 0 allocs/op", t.Name, n)
	}
	return counts, lines, nil
}

// TestRecount: benchmarks whose repeats agree are counted -repeat times;
// one whose repeats disagree on one side is re-counted on both sides up
// to -max-repeat, every repeat kept; window tasks of one binary and count
// share processes, difference tasks take two processes per repeat.
func TestRecount(t *testing.T) {
	var tasks []Task
	for _, side := range []string{"base", "head"} {
		b := Binary{Path: side, Window: true}
		tasks = append(tasks, Task{b, "Steady", [2]int{0, 1000}}, Task{b, "Flaky", [2]int{0, 1000}},
			Task{Binary{Path: side}, "Old", [2]int{10, 110}})
	}
	f := &fakeCounts{}
	o := Options{Repeat: 2, MaxRepeat: 5, Jobs: 2, MaxSpread: 0.005}
	rs := measure(context.Background(), f.count, tasks, o, nil)
	want := map[string]int{"Steady": 2, "Flaky": 5, "Old": 2}
	for _, r := range rs {
		if r.Err != nil || len(r.PerOp) != want[r.Name] {
			t.Errorf("%s %s: %d repeats (err %v), want %d", r.Binary.Path, r.Name, len(r.PerOp), r.Err, want[r.Name])
		}
		if r.Name == "Steady" && (!r.Deterministic || r.PerOp[0].Ir != 100) {
			t.Errorf("%s Steady: %+v", r.Binary.Path, r)
		}
		if r.Name == "Flaky" && r.Binary.Path == "head" && (r.Deterministic || r.Spread < 0.009) {
			t.Errorf("head Flaky: deterministic %v spread %v", r.Deterministic, r.Spread)
		}
	}
	// 2 repeats x (2 sides x (1 window process + 2 difference processes))
	// + 3 re-counts x 2 sides x 1 process of Flaky alone.
	if f.processes != 18 || f.grouped != 4 {
		t.Fatalf("%d processes, %d of them grouped; want 18 and 4", f.processes, f.grouped)
	}
}

// TestRecountOneBinary: an A/A gate's sides are one binary; each side's
// window is counted in a process of its own, never both in one.
func TestRecountOneBinary(t *testing.T) {
	b := Binary{Path: "same", Window: true}
	tasks := []Task{{b, "A", [2]int{0, 100}}, {b, "B", [2]int{0, 100}}, {b, "A", [2]int{0, 100}}, {b, "B", [2]int{0, 100}}}
	f := &fakeCounts{}
	rs := measure(context.Background(), f.count, tasks, Options{Repeat: 2, MaxRepeat: 2, Jobs: 1, MaxSpread: 0.005}, nil)
	if f.twice != 0 || f.processes != 4 {
		t.Fatalf("%d processes, %d of them counted a name twice", f.processes, f.twice)
	}
	for _, r := range rs {
		if r.Err != nil || len(r.PerOp) != 2 {
			t.Fatalf("%+v", r)
		}
	}
}

// TestLongestFirst: with one worker, the window processes at one
// iteration are counted first, the others in their order.
func TestLongestFirst(t *testing.T) {
	b := Binary{Path: "bin", Window: true}
	tasks := []Task{{b, "Short", [2]int{0, 1000}}, {Binary{Path: "bin"}, "Old", [2]int{10, 110}}, {b, "Long", [2]int{0, 1}}, {b, "Other", [2]int{0, 20}}}
	var order []string
	f := &fakeCounts{onCount: func(t Task) { order = append(order, fmt.Sprintf("%s@%d", t.Name, t.Iters[1])) }}
	measure(context.Background(), f.count, tasks, Options{Repeat: 2, MaxRepeat: 2, Jobs: 1, MaxSpread: 0.005}, nil)
	want := "[Long@1 Long@1 Short@1000 Old@110 Old@110 Other@20 Short@1000 Old@110 Old@110 Other@20]"
	if got := fmt.Sprint(order); got != want {
		t.Fatalf("counted in the order %s, want %s", got, want)
	}
}

// TestWiden: a benchmark whose window repeats still disagree after
// -max-repeat is counted again on every side at ten times its iterations,
// and judged on those counts alone; one that is not a window, or would
// count too much widened, keeps its counts.
func TestWiden(t *testing.T) {
	var tasks []Task
	for _, side := range []string{"base", "head"} {
		b := Binary{Path: side, Window: true}
		tasks = append(tasks, Task{b, "Steady", [2]int{0, 1000}}, Task{b, "Timed", [2]int{0, 1000}},
			Task{b, "Flaky", [2]int{0, 1e7}}, Task{Binary{Path: side}, "Old", [2]int{10, 110}})
	}
	f := &fakeCounts{}
	o := Options{Repeat: 2, MaxRepeat: 3, Jobs: 2, MaxSpread: 0.005, Widen: 10}
	rs := measure(context.Background(), f.count, tasks, o, nil)
	for _, r := range rs {
		wide := r.Name == "Timed"
		want := 1000
		switch {
		case wide:
			want = 10000
		case r.Name == "Flaky":
			want = 1e7 // 10⁹ instructions widened: over MaxWidened
		case r.Name == "Old":
			want = 110
		}
		if r.Err != nil || r.Widened != wide || r.Iters[1] != want {
			t.Errorf("%s %s: widened %v at %d (err %v), want %v at %d", r.Binary.Path, r.Name, r.Widened, r.Iters[1], r.Err, wide, want)
		}
		if wide && (!r.Deterministic || len(r.PerOp) > 3) {
			t.Errorf("%s Timed widened: deterministic %v, %d repeats, spread %v", r.Binary.Path, r.Deterministic, len(r.PerOp), r.Spread)
		}
	}
	if tasks[1].Iters[1] != 1000 {
		t.Errorf("the caller's tasks changed: %v", tasks[1])
	}
}

// TestWidenUndecided: a benchmark whose repeats agree on each side but
// whose sides Undecided cannot tell apart is widened too, up to
// MaxWidenedAgreeing; one it can tell apart is not.
func TestWidenUndecided(t *testing.T) {
	var tasks []Task
	for _, side := range []string{"base", "head"} {
		b := Binary{Path: side, Window: true}
		tasks = append(tasks, Task{b, "Steady", [2]int{0, 1000}}, Task{b, "Offset", [2]int{0, 1000}},
			Task{b, "OffsetBig", [2]int{0, 1e5}}) // 10⁸ instructions widened: over MaxWidenedAgreeing
	}
	var asked [][][]Counts
	undecided := func(sides [][]Counts) bool { // per-op means 0.3 apart or more
		asked = append(asked, sides)
		mean := func(cs []Counts) float64 { r := Result{PerOp: cs}; return r.Mean().Ir }
		return len(sides) == 2 && mean(sides[1])-mean(sides[0]) >= 0.3
	}
	o := Options{Repeat: 2, MaxRepeat: 3, Jobs: 2, MaxSpread: 0.005, Widen: 10, Undecided: undecided}
	for _, r := range measure(context.Background(), (&fakeCounts{}).count, tasks, o, nil) {
		wide := r.Name == "Offset"
		if r.Err != nil || r.Widened != wide || len(r.PerOp) != 2 {
			t.Errorf("%s %s: widened %v at %d, %d repeats (err %v); want widened %v, 2 repeats", r.Binary.Path, r.Name, r.Widened, r.Iters[1], len(r.PerOp), r.Err, wide)
		}
	}
	if len(asked) != 3 || len(asked[0]) != 2 || len(asked[0][1]) != 2 {
		t.Fatalf("Undecided asked %d times, want once per benchmark with both sides' two repeats", len(asked))
	}
}

// TestWidenInterrupted: an interrupt while widening keeps the narrower
// counts, a whole measurement, rather than losing the benchmark.
func TestWidenInterrupted(t *testing.T) {
	b := Binary{Path: "head", Window: true}
	tasks := []Task{{b, "Timed", [2]int{0, 1000}}, {b, "Steady", [2]int{0, 1000}}}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	widening := false
	f := &fakeCounts{onCount: func(t Task) {
		if t.Iters[1] > 1000 {
			widening = true
			cancel()
		}
	}}
	rs := measure(ctx, f.count, tasks, Options{Repeat: 2, MaxRepeat: 3, Jobs: 1, MaxSpread: 0.005, Widen: 10}, nil)
	for _, r := range rs {
		if r.Err != nil || r.Widened || r.Iters[1] != 1000 || len(r.PerOp) < 2 {
			t.Errorf("%s: widened %v at %d, %d repeats, err %v; want the narrow counts", r.Name, r.Widened, r.Iters[1], len(r.PerOp), r.Err)
		}
	}
	if !widening {
		t.Fatal("Timed was never counted widened")
	}
}

// TestWindowIters: the window's count is the native count rounded down to
// 1, 2 or 5 times a power of ten, at least 1.
func TestWindowIters(t *testing.T) {
	for n, want := range map[int]int{0: 1, 1: 1, 2: 2, 3: 2, 7: 5, 10: 10, 19: 10, 20: 20, 4999: 2000, 5000: 5000, 123456: 100000} {
		if got := WindowIters(n); got != [2]int{0, want} {
			t.Errorf("WindowIters(%d) = %v, want [0 %d]", n, got, want)
		}
	}
}
