package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/loopbench/loopbench/internal/measure/loadresult"
)

// TestMergeOneSweepFile: merge of one generator's sweep file gives every
// step the verdict load gave it: a step where its one connection was
// busy, answered as fast as at the first step, stays connection-bound,
// left out of the knee, which stays a lower bound.
func TestMergeOneSweepFile(t *testing.T) {
	start := time.Date(2026, 11, 23, 10, 0, 0, 0, time.UTC)
	var b bytes.Buffer
	for k, rate := range []float64{400, 1000} {
		h := loadresult.NewHistogram()
		h.RecordValues(2_000_000, 100) // 2 ms each, at both steps
		at := start.Add(time.Duration(k) * 5 * time.Second)
		r := loadresult.Result{Name: "g", Label: "echo", Addr: "198.18.0.1:9000", Conns: 1, Size: 64, CPUs: 2, Loops: 1,
			Offered: rate, Achieved: min(rate, 450), Requests: 900, Scheduled: 900, Answered: 900,
			WindowStart: at, WindowEnd: at.Add(2 * time.Second), Elapsed: 2 * time.Second, Duration: 2 * time.Second,
			Wall: 2 * time.Second, CPU: time.Second / 4, CorrectedHist: h, UncorrectedHist: h, PacingLagHist: loadresult.NewHistogram()}
		r.Summarize()
		if err := r.AsStep(k, 50*time.Millisecond, 0.01).Write(&b); err != nil {
			t.Fatal(err)
		}
	}
	path := filepath.Join(t.TempDir(), "sweep.json")
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	out, errs, code := runOut("merge", path)
	lines := strings.Split(out, "\n")
	if code != 0 || len(lines) < 4 || !strings.HasSuffix(lines[2], "  met") || !strings.HasSuffix(lines[3], "  behind, generator connection-bound") ||
		!strings.Contains(out, "merged knee at least 400 req/s: the generator was connection-bound at 1000 req/s") {
		t.Fatalf("exit %d\n%s\n%s", code, out, errs)
	}
}
