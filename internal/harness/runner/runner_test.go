package runner

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/loopbench/loopbench/bench"
	"github.com/loopbench/loopbench/internal/harness/verdict"
	"github.com/loopbench/loopbench/internal/measure/benchdata"
	"github.com/loopbench/loopbench/internal/measure/machine"
	"golang.org/x/perf/benchfmt"
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
// against 110 in a fixed order); with the rounds' order and collection the twins
// come out ~ in the verdict.
func TestRunTwinsAreSame(t *testing.T) {
	m := &litterModel{}
	cases := []bench.Case{m.workload("litter", 1000), m.workload("twin-a", 10), m.workload("twin-b", 10)}
	var raw bytes.Buffer
	raw.WriteString("Unit cost/op better=lower\n")
	cfg := Config{Count: 10, Benchtime: time.Nanosecond, Seed: 42}
	if _, err := cfg.Rounds(context.Background(), cases, NewWriter(benchfmt.NewWriter(&raw)), NewProgress(io.Discard, false, len(cases), cfg.Count, time.Now)); err != nil {
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

// TestRoundsInterrupted: rounds stopped between cases return an
// *Interrupted error counting what was done, and the results measured
// before it are written.
func TestRoundsInterrupted(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cases := bench.Cases(bench.Options{Workloads: []string{"ReadyQueue"}})
	n := 0
	measure := func(run func(bench.Timer, int) error, d time.Duration) (bench.Result, error) {
		if n++; n == 2 {
			cancel()
		}
		return bench.Result{N: 1, NsPerOp: 5}, nil
	}
	var raw bytes.Buffer
	cfg := Config{Count: 3, Benchtime: time.Millisecond, Measure: measure, Sample: quietMachine()}
	_, err := cfg.Rounds(ctx, cases, NewWriter(benchfmt.NewWriter(&raw)), NewProgress(io.Discard, false, len(cases), 3, time.Now))
	var in *Interrupted
	if !errors.As(err, &in) || in.Done != 2 || in.Total != 3*len(cases) {
		t.Fatalf("Rounds = %v, want interrupted after 2 of %d", err, 3*len(cases))
	}
	if got := strings.Count(raw.String(), "Benchmark"); got != 2 {
		t.Fatalf("%d results written before the interrupt, want 2:\n%s", got, raw.String())
	}
}

// quietMachine is a machine read as quiet, 1 s later at each reading.
func quietMachine() func() (machine.Sample, error) {
	clock := time.Unix(0, 0)
	return func() (machine.Sample, error) {
		clock = clock.Add(time.Second)
		return machine.Sample{At: clock, Load1: 0.5}, nil
	}
}

// TestWriteFileMarks: an interrupted run's file starts with the interrupt
// and the machine's state, then its own head, the units and the results;
// a skipped case is logged once, in the first round, and not written.
func TestWriteFileMarks(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	skip := bench.Case{Workload: "W", Variant: "skip", Setup: func() (func(bench.Timer, int) error, func(), error) {
		return nil, nil, bench.ErrFdLimit
	}}
	ok := bench.Case{Workload: "W", Variant: "ok", Setup: func() (func(bench.Timer, int) error, func(), error) {
		return func(bench.Timer, int) error { return nil }, nil, nil
	}}
	n := 0
	measure := func(run func(bench.Timer, int) error, d time.Duration) (bench.Result, error) {
		if n++; n == 2 { // the second round's measurement of ok
			cancel()
		}
		return bench.Result{N: 1, NsPerOp: 5}, nil
	}
	var log bytes.Buffer
	cfg := Config{Count: 3, Benchtime: time.Millisecond, Measure: measure, Sample: quietMachine(), Log: &log}
	path := filepath.Join(t.TempDir(), "raw.txt")
	cases := []bench.Case{skip, ok}
	runErr, err := cfg.WriteFile(ctx, path, func(w io.Writer) { io.WriteString(w, "command: test\n") }, cases, NewProgress(io.Discard, false, 2, 3, time.Now))
	var in *Interrupted
	if err != nil || !errors.As(runErr, &in) {
		t.Fatalf("WriteFile = %v, %v; want an interrupt", runErr, err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(b), "\n")
	if lines[0] != "interrupted: "+in.String() || !strings.HasPrefix(lines[1], "machine-") {
		t.Errorf("file does not start with the interrupt and the machine:\n%s", b)
	}
	if i, j := strings.Index(string(b), "command: test"), strings.Index(string(b), "Unit "); i < 0 || j < i {
		t.Errorf("the head, then the units, not found in order:\n%s", b)
	}
	if got := strings.Count(string(b), "BenchmarkW/ok-"); got != 2 || strings.Contains(string(b), "W/skip") {
		t.Errorf("%d results of ok, want 2, and none of skip:\n%s", got, b)
	}
	if got := strings.Count(log.String(), "skipped W/skip"); got != 1 {
		t.Errorf("skip logged %d times, want 1:\n%s", got, log.String())
	}
}

// TestColdFireHasNoSecOp: a workload's zero ns/op leaves ns/op out of the
// line (cold-fire's wall time is its 100 ms wait); its other metrics and
// the memory units stay, at full precision.
func TestColdFireHasNoSecOp(t *testing.T) {
	var b bytes.Buffer
	w := NewWriter(benchfmt.NewWriter(&b))
	c := bench.Case{Workload: "Timers", Variant: "v", Params: "op=cold-fire/k=1000"}
	res := bench.Result{N: 3, NsPerOp: 1.2e8, Metrics: []bench.Metric{{Value: 491.123456, Unit: "cpu-ns/timer"}, {Value: 0, Unit: "ns/op"}}}
	if err := w.WriteCase(c, res); err != nil {
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
		{Plan(1, 1, 100*time.Millisecond), "1 case × 1 round × 100ms: "},
		{Plan(2, 3, 100*time.Millisecond), "2 cases × 3 rounds × 100ms: "},
		{(&Interrupted{0, 1}).String(), "after 0 of 1 measurement (Ctrl-C)"},
		{(&Interrupted{1, 2}).String(), "after 1 of 2 measurements (Ctrl-C)"},
	} {
		if !strings.HasPrefix(c.got, c.want) {
			t.Errorf("%q, want it to start with %q", c.got, c.want)
		}
	}
}

// TestQuoteArgs: what a shell would split or expand is quoted, a quote
// inside escaped; the rest is left as is.
func TestQuoteArgs(t *testing.T) {
	got := strings.Join(QuoteArgs([]string{"-count", "3", "", "a b", "it's", "-filter=*"}), " ")
	if want := `-count 3 '' 'a b' 'it'\''s' '-filter=*'`; got != want {
		t.Errorf("QuoteArgs: %s, want %s", got, want)
	}
}
