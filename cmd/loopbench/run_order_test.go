package main

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/loopbench/loopbench/bench"
	"github.com/loopbench/loopbench/internal/harness/benchdata"
	"github.com/loopbench/loopbench/internal/harness/verdict"
)

// litterModel stands for the garbage a case leaves behind: each case
// leaves some, the next case's cost grows with it, and a completed
// garbage collection clears it.
type litterModel struct {
	left   float64 // garbage the previous case left
	lastGC uint32
}

func (m *litterModel) observeGC() {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	if ms.NumGC != m.lastGC {
		m.left, m.lastGC = 0, ms.NumGC
	}
}

// workload is a case that costs 100 plus the garbage it finds, and leaves
// leave behind.
func (m *litterModel) workload(name string, leave float64) bench.Case {
	return bench.Case{Workload: "Twin", Variant: name, Setup: func() (func(bench.Timer, int) error, func(), error) {
		return func(t bench.Timer, n int) error {
			m.observeGC()
			t.ReportMetric(100+m.left, "cost/op")
			m.left = leave
			time.Sleep(time.Microsecond) // a measurable run at -benchtime 1ns
			return nil
		}, nil, nil
	}}
}

// TestRunTwinsAreSame: two cases of identical code, after a case that
// leaves much garbage, measured 10 rounds. Without a collection before
// each case the twin that follows the litter pays for it (cost 1100
// against 110 in a fixed order); with run's order and collection the twins
// come out ~ in the verdict.
func TestRunTwinsAreSame(t *testing.T) {
	m := &litterModel{}
	cases := []bench.Case{m.workload("litter", 1000), m.workload("twin-a", 10), m.workload("twin-b", 10)}
	var raw bytes.Buffer
	raw.WriteString("Unit cost/op better=lower\n")
	rc := runConfig{count: 10, benchtime: time.Nanosecond, seed: 42}
	if _, err := runRounds(context.Background(), rc, cases, &raw, func(bench.Case, error) {}, newProgress(&bytes.Buffer{}, len(cases), rc.count, time.Now), io.Discard); err != nil {
		t.Fatal(err)
	}
	set, err := benchdata.Read(&raw, "raw", nil)
	if err != nil {
		t.Fatal(err)
	}
	var a, b []float64
	for _, s := range set.Samples {
		switch {
		case s.Unit == "cost/op" && s.Name == "Twin/twin-a":
			a = s.Values
		case s.Unit == "cost/op" && s.Name == "Twin/twin-b":
			b = s.Values
		}
	}
	v := verdict.Decide([]verdict.Pair{{Name: "twin", Unit: "cost/op", Base: a, Head: b}}, verdict.Options{MinEffect: 0.05})
	if c := v.Comparisons[0]; c.Status != verdict.Same || c.Significant {
		t.Fatalf("identical twins: %v (p %g, delta %+.1f%%): a %v, b %v", c.Status, c.P, 100*c.Delta, a, b)
	}
}

// TestRoundOrder: each round's order is a permutation drawn from the seed
// and the round: rounds differ, and the same seed replays them.
func TestRoundOrder(t *testing.T) {
	cases := bench.Cases(bench.Options{Workloads: []string{"CallSoon"}})
	names := func(cs []bench.Case) []string {
		out := make([]string, len(cs))
		for i, c := range cs {
			out[i] = c.Name()
		}
		return out
	}
	r0, r1 := names(bench.Shuffle(cases, 7, 0)), names(bench.Shuffle(cases, 7, 1))
	if slices.Equal(r0, r1) || slices.Equal(r0, names(cases)) {
		t.Fatalf("rounds 0 and 1 in the same order, or in the matrix's: %v", r0)
	}
	if !slices.Equal(r0, names(bench.Shuffle(cases, 7, 0))) {
		t.Fatal("the same seed and round gave another order")
	}
	sorted := slices.Sorted(slices.Values(r0))
	if !slices.Equal(sorted, slices.Sorted(slices.Values(names(cases)))) {
		t.Fatal("a round's order is not a permutation of the cases")
	}
}

// TestInterrupts: the first signal cancels the context and says so; the
// second exits at once with status 130.
func TestInterrupts(t *testing.T) {
	sigs := make(chan os.Signal, 2)
	var errb syncBuffer
	errb.mu = new(sync.Mutex)
	exited := make(chan int, 1)
	ctx, stop := watchInterrupts(sigs, &errb, func(code int) { exited <- code }, measuring)
	defer stop()
	sigs <- os.Interrupt
	<-ctx.Done()
	sigs <- os.Interrupt
	if code := <-exited; code != 130 {
		t.Fatalf("exit %d, want 130", code)
	}
	if s := errb.String(); !strings.Contains(s, "interrupt seen") || !strings.Contains(s, "second interrupt") {
		t.Fatalf("stderr %q", s)
	}
}

// TestRunMarksInterrupt: a run interrupted between cases marks raw.txt
// and summary.md.
func TestRunMarksInterrupt(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	n := 0
	measure = func(run func(bench.Timer, int) error, d time.Duration) (bench.Result, error) {
		if n++; n == 3 {
			cancel()
		}
		return bench.Result{N: 1000, NsPerOp: float64(100 + n%3)}, nil
	}
	t.Cleanup(func() { measure = bench.Measure })
	saved := interruptContext
	interruptContext = func(string) (context.Context, context.CancelFunc) { return ctx, cancel }
	t.Cleanup(func() { interruptContext = saved })
	dir := t.TempDir()
	var out, errb bytes.Buffer
	err := run([]string{"run", "-count", "2", "-workloads", "ReadyQueue", "-seed", "1", "-out", dir}, &out, &errb)
	if err == nil || !strings.Contains(err.Error(), "interrupted after 3 of") {
		t.Fatalf("run = %v", err)
	}
	raw, _ := os.ReadFile(filepath.Join(dir, "raw.txt"))
	md, _ := os.ReadFile(filepath.Join(dir, "summary.md"))
	if !strings.HasPrefix(string(raw), "interrupted: after 3 of") || !strings.Contains(string(md), "interrupted") {
		t.Fatalf("raw.txt:\n%s\nsummary.md:\n%s", raw, md)
	}
}

// syncBuffer is a bytes.Buffer safe for a goroutine writing and a test
// reading.
type syncBuffer struct {
	mu *sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestColdFireHasNoSecOp: a workload's zero ns/op leaves ns/op out of the
// line (cold-fire's wall time is its 100 ms wait); its other metrics and
// the memory units stay, at full precision.
func TestColdFireHasNoSecOp(t *testing.T) {
	var b bytes.Buffer
	w := newResultWriter(&b)
	c := bench.Case{Workload: "Timers", Variant: "v", Params: "op=cold-fire/k=1000"}
	res := bench.Result{N: 3, NsPerOp: 1.2e8, Metrics: []bench.Metric{{Value: 491.123456, Unit: "cpu-ns/timer"}, {Value: 0, Unit: "ns/op"}}}
	if err := w.writeCase(c, res); err != nil {
		t.Fatal(err)
	}
	line := b.String()
	if strings.Contains(line, "ns/op") || !strings.Contains(line, "491.123456 cpu-ns/timer") || !strings.Contains(line, "allocs/op") {
		t.Fatalf("line %q", line)
	}
}

// TestSingularCounts: counts of one are printed in the singular.
func TestSingularCounts(t *testing.T) {
	for _, c := range []struct{ got, want string }{
		{plan(1, 1, 100*time.Millisecond), "1 case × 1 round × 100ms: "},
		{plan(2, 3, 100*time.Millisecond), "2 cases × 3 rounds × 100ms: "},
		{(&interruptedError{0, 1}).String(), "after 0 of 1 measurement (Ctrl-C)"},
		{(&interruptedError{1, 2}).String(), "after 1 of 2 measurements (Ctrl-C)"},
	} {
		if !strings.HasPrefix(c.got, c.want) {
			t.Errorf("%q, want it to start with %q", c.got, c.want)
		}
	}
}
