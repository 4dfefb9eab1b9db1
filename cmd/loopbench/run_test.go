package main

import (
	"bytes"
	"flag"
	"hash/fnv"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/loopbench/loopbench/bench"
	"github.com/loopbench/loopbench/internal/harness/runner"
	"github.com/loopbench/loopbench/internal/measure/machine"
	"github.com/loopbench/loopbench/selectors"
	"golang.org/x/perf/benchfmt"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// golden compares got with testdata/name, or rewrites it with -update.
func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if got != string(want) {
		t.Errorf("output differs from %s (run with -update to accept):\n%s", path, got)
	}
}

// stubMeasure replaces bench.Measure with a deterministic result for each
// call, so the medians and spreads of the summary are stable.
func stubMeasure(t *testing.T) {
	n := 0
	measure = func(run func(bench.Timer, int) error, d time.Duration) (bench.Result, error) {
		n++
		h := fnv.New32a()
		h.Write([]byte{byte(n)})
		v := 100 + float64(h.Sum32()%7)
		return bench.Result{N: 1000, NsPerOp: v}, nil
	}
	// The machine: a quiet round of 2 s each time it is read.
	clock := time.Unix(0, 0)
	readMachine = func() (machine.Sample, error) {
		clock = clock.Add(time.Second)
		return machine.Sample{At: clock, Load1: 0.5}, nil
	}
	t.Cleanup(func() { measure, readMachine = bench.Measure, machine.Read })
}

func TestRunGolden(t *testing.T) {
	stubMeasure(t)
	dir := t.TempDir()
	var out, errb bytes.Buffer
	args := []string{"run", "-count", "3", "-seed", "1", "-workloads", "CallSoon,ReadyQueue",
		"-variants", "ready=ringbuffer/timers=heap4ary/selector=epoll,ready=deque/timers=heap4ary/selector=epoll", "-out", dir}
	if err := run(args, &out, &errb); err != nil {
		t.Fatal(err, errb.String())
	}
	golden(t, "run.golden", out.String())
	raw, err := os.ReadFile(filepath.Join(dir, "raw.txt"))
	if err != nil {
		t.Fatal(err)
	}
	r := benchfmt.NewReader(bytes.NewReader(raw), "raw.txt")
	results := 0
	for r.Scan() {
		switch rec := r.Result().(type) {
		case *benchfmt.SyntaxError:
			t.Errorf("raw.txt: %v", rec)
		case *benchfmt.Result:
			results++
			for _, key := range []string{"goos", "goarch", "cpu", "kernel", "go", "gomaxprocs", "commit"} {
				if rec.GetConfig(key) == "" {
					t.Errorf("raw.txt: result without config %q", key)
				}
			}
		}
	}
	if results != 3*(2*3+2+2) {
		t.Fatalf("raw.txt has %d results, want 30: 3 rounds of 3 CallSoon modes on 2 variants, 2 CallSoon baselines, 2 ready queues", results)
	}
	if md, err := os.ReadFile(filepath.Join(dir, "summary.md")); err != nil || !strings.Contains(string(md), "| mode=batch/batch=1000 |") {
		t.Fatalf("summary.md: %v\n%s", err, md)
	}
	for _, f := range []string{"report.html", "CallSoon-sec-op.svg", "ReadyQueue-sec-op.svg"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Errorf("run wrote no %s: %v", f, err)
		}
	}
}

// TestRunPlan: a run says what it will measure, from its counts: -quick's
// 232 cases × 3 rounds × 100 ms are 70 s of timed loops. It guesses no
// total from them (a whole run took from 2.7 to 10 times its timed
// loops): the progress lines estimate it from the measurements.
func TestRunPlan(t *testing.T) {
	got := runner.Plan(232, 3, 100*time.Millisecond)
	if want := "232 cases × 3 rounds × 100ms: 1m10s of timed loops, plus each case's setup and calibration; the time left is estimated from the measurements as they complete"; got != want {
		t.Errorf("plan: %q, want %q", got, want)
	}
	stubMeasure(t)
	_, errs, code := runOut("run", "-count", "1", "-benchtime", "5ms", "-workloads", "ReadyQueue", "-out", filepath.Join(t.TempDir(), "p"))
	if code != 0 || !strings.Contains(errs, "2 cases × 1 round × 5ms") {
		t.Errorf("exit %d, stderr %q: no plan", code, errs)
	}
}

func TestRunUsage(t *testing.T) {
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"run", "-variants", "ready=list"}, `unknown ready queue "list" (valid: ringbuffer, deque)`},
		{[]string{"run", "-workloads", "Sorting"}, `unknown workload "Sorting"`},
		{[]string{"run", "-count", "-1"}, "-count -1: want at least 1 round"},
		{[]string{"run", "-bogus"}, "flag provided but not defined: -bogus"},
	}
	for _, c := range cases {
		var out, errb bytes.Buffer
		err := run(c.args, &out, &errb)
		if exitCode(err) != 2 || !strings.Contains(errb.String(), c.want) {
			t.Errorf("run(%q): exit %d, stderr %q; want exit 2 and %q", c.args, exitCode(err), errb.String(), c.want)
		}
	}
}

// TestListGolden: the golden file lists every variant of a Linux kernel
// that allows io_uring; where uring is absent, the same lists without its
// variants.
func TestListGolden(t *testing.T) {
	var out bytes.Buffer
	if err := run([]string{"list"}, &out, &bytes.Buffer{}); err != nil {
		t.Fatal(err)
	}
	if err := selectors.Available("uring"); err != nil && !*update {
		t.Logf("uring absent, its variants not expected: %v", err)
		want, err := os.ReadFile(filepath.Join("testdata", "list.golden"))
		if err != nil {
			t.Fatal(err)
		}
		var kept []string
		for _, line := range strings.SplitAfter(string(want), "\n") {
			if !strings.HasSuffix(line, "/selector=uring\n") {
				kept = append(kept, line)
			}
		}
		if got := out.String(); got != strings.Join(kept, "") {
			t.Errorf("list differs from list.golden without uring:\n%s", got)
		}
		return
	}
	golden(t, "list.golden", out.String())
}

// TestRunRecordsAndRefuses: raw.txt records the command and the machine
// (host, cores, CPU, kernel, Go, GOMAXPROCS, commit); a second run
// into the same -out is refused; default counts give intervals, -quick
// says it does not.
func TestRunRecordsAndRefuses(t *testing.T) {
	stubMeasure(t)
	dir := filepath.Join(t.TempDir(), "out")
	args := []string{"run", "-count", "1", "-workloads", "ReadyQueue", "-out", dir}
	if _, errs, code := runOut(args...); code != 0 {
		t.Fatalf("exit %d %s", code, errs)
	}
	raw, _ := os.ReadFile(filepath.Join(dir, "raw.txt"))
	if !strings.Contains(string(raw), "\ncommand: loopbench run -count 1 -workloads ReadyQueue -out "+dir+"\n") {
		t.Fatalf("raw.txt does not record the command:\n%s", raw)
	}
	host, _ := os.Hostname()
	for _, line := range []string{"\nmachine-host: " + host + "\n", "\nmachine-cores: ", "\ncpu: ", "\nkernel: ", "\ngo: ", "\ngomaxprocs: ", "\ncommit: "} {
		if !strings.Contains(string(raw), line) {
			t.Errorf("raw.txt does not describe the machine with %q:\n%s", line, raw)
		}
	}
	if _, errs, code := runOut(args...); code != 2 || !strings.Contains(errs, "exists and is not empty") {
		t.Fatalf("second run into %s: exit %d %s", dir, code, errs)
	}
	rc, err := parseRun(nil, io.Discard)
	if err != nil || rc.cfg.Count != 6 {
		t.Fatalf("default count %d (%v), want 6: benchstat needs 6 for an interval", rc.cfg.Count, err)
	}
	if rc, err := parseRun([]string{"-quick"}, io.Discard); err != nil || rc.cfg.Count != 3 || rc.cfg.Benchtime != 100*time.Millisecond {
		t.Fatalf("-quick: count %d benchtime %v (%v)", rc.cfg.Count, rc.cfg.Benchtime, err)
	}
	if _, errs, _ := runOut("run", "-quick", "-workloads", "ReadyQueue", "-out", filepath.Join(t.TempDir(), "q")); !strings.Contains(errs, "3 rounds give no confidence intervals") {
		t.Fatalf("-quick does not say it gives no intervals: %q", errs)
	}
}
