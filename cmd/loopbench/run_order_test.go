package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/loopbench/loopbench/bench"
)

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
