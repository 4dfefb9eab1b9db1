package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/loopbench/loopbench/internal/harness/gate"
	"github.com/loopbench/loopbench/internal/harness/gate/gatetest"
	"github.com/loopbench/loopbench/internal/harness/verdict"
)

// regressionsLine is the gate's exit-1 message for one regression or two.
var regressionsLine = regexp.MustCompile(`loopbench gate: [12] regressions? beyond the minimum effect`)

// TestGateEndToEnd: on a throwaway module, a revision ten times slower
// (and with 20 times the deterministic steps/op) fails the gate, exit 1,
// naming the benchmark; the same revision twice passes, exit 0. The A/A
// verdict is read on the deterministic units only, so the test cannot
// fail on the machine's noise.
func TestGateEndToEnd(t *testing.T) {
	r := gatetest.New(t)
	fast := r.CommitWork("100")
	slow := r.CommitWork("2000")
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	t.Chdir(r.Dir)
	// sec/op's U test needs every head round slower than every base one
	// (p 0.029 at 4+4), which a loaded machine can deny it: the count of
	// regressions the message gives is steps/op's one, or two.
	out, errs, code := runOut("gate", "-base", fast, "-head", slow, "-pkg", ".", "-count", "4", "-benchtime", "50x", "-seed", "7", "-out", filepath.Join(r.Dir, "ab"))
	if code != 1 || !strings.Contains(out, "REGRESSION Work steps/op +1900.00% (exact)") || !regressionsLine.MatchString(errs) {
		t.Fatalf("A/B: exit %d\nstderr %s\nstdout %s", code, errs, out)
	}
	if !strings.Contains(out, "seed 7") || !strings.Contains(out, "4 rounds") {
		t.Fatalf("the output does not record the seed and rounds:\n%s", out)
	}
	// The A/A run is judged on the deterministic metric: at 50 iterations
	// an alloc-free benchmark's B/op can catch a runtime allocation in a
	// round (0, 0, 106 was seen), and should it catch one in every head
	// round, the amortised rule would see more bytes per op.
	out, errs, code = runOut("gate", "-base", fast, "-head", fast, "-pkg", ".", "-count", "4", "-benchtime", "50x",
		"-filter", ".unit:steps/op", "-out", filepath.Join(r.Dir, "aa"))
	if code != 0 || strings.Contains(out, "REGRESSION") {
		t.Fatalf("A/A: exit %d\nstderr %s\nstdout %s", code, errs, out)
	}
	// -aa writes floors for the timed units, keyed by group, name and
	// unit, from 8 rounds or more.
	floors := filepath.Join(r.Dir, "floors.txt")
	out, errs, code = runOut("gate", "-aa", "-pkg", ".", "-count", "8", "-benchtime", "50x", "-filter", ".unit:sec/op", "-out", filepath.Join(r.Dir, "cal"), "-write-floor", floors)
	if code == 2 || !strings.Contains(out, "A/A calibration") || !strings.Contains(out, "gate: base working tree (") {
		t.Fatalf("-aa: exit %d\nstderr %s\nstdout %s", code, errs, out)
	}
	if b, err := os.ReadFile(floors); err != nil || !strings.Contains(string(b), "\tWork\tsec/op\t") {
		t.Fatalf("floors file: %v\n%s", err, b)
	}
	// Sequential: it looks after 2, 4 and 8 rounds, each look at alpha/3,
	// and the exact steps/op regression is exit 1 whatever it stopped at.
	out, errs, code = runOut("gate", "-base", fast, "-head", slow, "-pkg", ".", "-count", "8", "-min-count", "2", "-benchtime", "50x", "-out", filepath.Join(r.Dir, "seq"))
	if code != 1 || !strings.Contains(errs, "look after 2 rounds") || !strings.Contains(out, "REGRESSION Work steps/op") {
		t.Fatalf("sequential: exit %d\nstderr %s\nstdout %s", code, errs, out)
	}
	// -format json: one object with the verdict, the exit code and what
	// the gate ran.
	out, errs, code = runOut("gate", "-base", fast, "-head", slow, "-pkg", ".", "-count", "4", "-benchtime", "50x", "-format", "json", "-out", filepath.Join(r.Dir, "json"))
	var rep gate.JSONReport
	if err := json.Unmarshal([]byte(out), &rep); err != nil || code != 1 || rep.Exit != 1 || rep.Gate == nil || rep.Gate.Metric != "wall" ||
		rep.Gate.BaseRuns != 4 || rep.Gate.HeadRuns != 4 || len(rep.Gate.Files) != 3 || !hasRegression(rep, "Work", "steps/op") {
		t.Fatalf("-format json: exit %d, %v\nstderr %s\nstdout %s", code, err, errs, out)
	}
	// A gate that fails before measuring leaves no directory behind, nor
	// the parent it created.
	out, errs, code = runOut("gate", "-head", "no-such-rev", "-seed", "1", "-pkg", ".", "-count", "4", "-format", "json", "-out", filepath.Join(r.Dir, "fresh", "out"))
	if code != 2 || !strings.Contains(errs, "unknown revision") {
		t.Fatalf("unknown revision: exit %d %s", code, errs)
	}
	jsonError := out
	if _, err := os.Stat(filepath.Join(r.Dir, "fresh")); !os.IsNotExist(err) {
		t.Fatalf("a failed gate left its directory: %v", err)
	}
	// So does one whose -bench matches nothing below the top level: its
	// first run finds no benchmark, exit 2, and its files, holding no
	// results, go with the directory.
	if _, errs, code := runOut("gate", "-base", fast, "-head", fast, "-pkg", ".", "-count", "4", "-benchtime", "5x", "-bench", "Work/nosuchmode", "-out", filepath.Join(r.Dir, "fresh", "out")); code != 2 || !strings.Contains(errs, `-bench "Work/nosuchmode" matched no benchmark`) {
		t.Fatalf("sub-benchmark matching nothing: exit %d %s", code, errs)
	}
	if _, err := os.Stat(filepath.Join(r.Dir, "fresh")); !os.IsNotExist(err) {
		t.Fatalf("a gate that measured nothing left its directory: %v", err)
	}
	// A second gate into the same -out is refused.
	if _, errs, code := runOut("gate", "-base", fast, "-head", fast, "-pkg", ".", "-count", "4", "-out", filepath.Join(r.Dir, "aa")); code != 2 || !strings.Contains(errs, "exists and is not empty") {
		t.Fatalf("reused -out: exit %d %s", code, errs)
	}
	t.Chdir(wd)
	golden(t, "gate_json_error.golden", jsonError)
}

func TestGateUsage(t *testing.T) {
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"-count", "0"}, "-count 0: one round a side is no evidence"},
		{[]string{"-count", "1"}, "-count 1: one round a side is no evidence for the U test; want at least 4"},
		{[]string{"-count", "2"}, "-count 2: the U test on 2+2 rounds cannot reach p<=0.05 (its smallest p is 0.33), so it could flag nothing; want -count 4 or more"},
		{[]string{"-count", "3"}, "-count 3: the U test on 3+3 rounds cannot reach p<=0.05 (its smallest p is 0.1), so it could flag nothing; want -count 4 or more"},
		{[]string{"-count", "3", "-aa"}, "want -count 4 or more"},
		{[]string{"-count", "4", "-min-count", "2"}, "-count 4: the U test on 4+4 rounds cannot reach p<=0.025 (-alpha 0.05 over 2 looks) (its smallest p is 0.029), so it could flag nothing; want -count 5 or more"},
		{[]string{"-count", "4", "-alpha", "0.01"}, "-count 4: the U test on 4+4 rounds cannot reach p<=0.01 (its smallest p is 0.029), so it could flag nothing; want -count 5 or more"},
		{[]string{"-aa", "-count", "5", "-write-floor", "f.txt"}, "-write-floor needs -count 8 or more"},
		{[]string{"-benchtime", "0s"}, `-benchtime "0s"`},
		{[]string{"-benchtime", "fast"}, `-benchtime "fast"`},
		{[]string{"-aa", "-base", "HEAD"}, "-aa runs the head binary against itself"},
		{[]string{"-write-floor", "f.txt"}, "-write-floor needs -aa"},
		{[]string{"-min-effect", "x"}, "-min-effect"},
		{[]string{"-alpha", "2"}, "-alpha 2"},
		{[]string{"-floor", "/no/such/floors.txt"}, "-floor: open"},
		{[]string{"-min-count", "20", "-count", "10"}, "-min-count 20: want 2 to -count (10)"},
		{[]string{"-min-count", "5", "-aa"}, "-min-count does not apply to -aa"},
		{[]string{"-metric", "instructions", "-min-count", "5"}, "-min-count applies to wall time"},
		{[]string{"-metric", "cycles"}, `-metric "cycles": want wall or instructions`},
		{[]string{"-repeat", "3"}, "-repeat applies to -metric instructions"},
		{[]string{"-method", "difference"}, "-method applies to -metric instructions"},
		{[]string{"-metric", "instructions", "-method", "both"}, `-method "both": want auto, windows or difference`},
	}
	for _, c := range cases {
		_, errs, code := runOut(append([]string{"gate"}, c.args...)...)
		if code != 2 || !strings.Contains(errs, c.want) {
			t.Errorf("gate %q: exit %d, stderr %q; want 2 and %q", c.args, code, errs, c.want)
		}
	}
	t.Chdir(t.TempDir())
	if _, errs, code := runOut("gate", "-count", "4"); code != 2 || !strings.Contains(errs, "not a git checkout") {
		t.Errorf("outside a checkout: exit %d, %q", code, errs)
	}
}

func hasRegression(r gate.JSONReport, name, unit string) bool {
	for _, c := range r.Comparisons {
		if c.Name == name && c.Unit == unit && c.Verdict == "regression" {
			return true
		}
	}
	return false
}

// TestJudgedExit: a judgment's error exits with the verdict's status, 3
// for an instruction gate that counted nothing, 2 for any other, 0 for
// none.
func TestJudgedExit(t *testing.T) {
	pairs := []verdict.Pair{{Name: "Up", Unit: "instructions/op", ExactUnit: true, Base: []float64{100, 100}, Head: []float64{120, 120}}}
	j := &verdict.Judgment{Matched: &verdict.Matched{Pairs: pairs}, Verdict: verdict.Decide(pairs, verdict.Options{MinEffect: 0.05})}
	for _, c := range []struct {
		err  error
		want int
	}{{nil, 0}, {j.Err(), 1}, {gate.ErrNothingCounted, 3}, {fmt.Errorf("wrapped: %w", gate.ErrNothingCounted), 3}, {errors.New("no such file"), 2}} {
		if got := exitCode(judgedExit(c.err)); got != c.want {
			t.Errorf("%v: exit %d, want %d", c.err, got, c.want)
		}
	}
}

// TestGateLog: off a terminal the gate's round lines are held and each
// tick of the heartbeat writes one line naming the latest round and the
// time elapsed; build output goes straight through, and the heartbeat
// stops with the gate.
func TestGateLog(t *testing.T) {
	var buf bytes.Buffer
	ticks := make(chan time.Time)
	stopped := 0
	begun := time.Date(2026, 11, 29, 0, 0, 0, 0, time.UTC)
	log, stop := gateLog(&lockedWriter{w: &buf}, begun, ticks, func() { stopped++ })
	fmt.Fprintf(log, "round 1 of 4: base\n")
	fmt.Fprintf(log, "# building head\n")
	fmt.Fprintf(log, "round 1 of 4: head\n")
	ticks <- begun.Add(90 * time.Second)
	stop()
	want := "# building head\nloopbench gate: round 1 of 4: head; 1m30s elapsed\n"
	if buf.String() != want || stopped != 1 {
		t.Fatalf("wrote %q (ticker stopped %d times); want %q and 1", buf.String(), stopped, want)
	}
}
