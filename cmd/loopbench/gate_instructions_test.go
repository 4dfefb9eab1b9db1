package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loopbench/loopbench/internal/callgrind"
	"github.com/loopbench/loopbench/internal/gate"
	"github.com/loopbench/loopbench/internal/gate/gatetest"
)

func needValgrind(t *testing.T) {
	if _, err := exec.LookPath("valgrind"); err != nil {
		t.Skip("valgrind not installed (Debian package valgrind)")
	}
}

// TestGateInstructions: on a throwaway module (counted in windows by the
// overlay of its testing package), 4 % more instructions
// per operation (steps 1000 -> 1040) is exit 1, named; the saved counts of
// that head stand for the base of a later gate, which finds the old
// revision 4 % better, in instructions and in est-cycles (judged at twice
// the minimum effect); the same revision twice is exit 0; -save-only
// counts one side; a benchmark whose work follows the clock is re-counted
// up to -max-repeat and reported with its spread; one that skips itself
// is listed as not counted.
func TestGateInstructions(t *testing.T) {
	needValgrind(t)
	r := gatetest.New(t)
	base := r.CommitWork("1000")
	head := r.CommitWork("1040")
	t.Chdir(r.Dir)
	gate := func(dir string, more ...string) (string, string, int) {
		args := []string{"gate", "-metric", "instructions", "-pkg", ".", "-benchtime", "5000x", "-j", "2", "-out", filepath.Join(r.Dir, dir)}
		return runOut(append(args, more...)...)
	}
	saved := filepath.Join(r.Dir, "head-counts.txt")
	out, errs, code := gate("ab", "-bench", "Work", "-repeat", "5", "-base", base, "-head", head, "-save", saved)
	if code != 1 || !strings.Contains(out, "REGRESSION Work instructions/op +") {
		t.Fatalf("4%% more instructions: exit %d\nstderr %s\nstdout %s", code, errs, out)
	}
	out, errs, code = gate("bl", "-bench", "Work", "-repeat", "5", "-baseline", saved, "-head", base)
	if code != 0 || !strings.Contains(out, "2 improved, 0 regressed") || strings.Count(readFile(t, saved), "BenchmarkWork ") != 5 {
		t.Fatalf("against the saved baseline: exit %d\nstderr %s\nstdout %s", code, errs, out)
	}
	out, errs, code = gate("aa", "-bench", "Work", "-aa", "-head", base)
	// Counted in windows by the testing package's overlay, the default
	// minimum effect is a window's (0.5 %).
	if code != 0 || strings.Contains(out, "REGRESSION") || !strings.Contains(out, "minimum effect 0.5% (est-cycles/op 1%).") {
		t.Fatalf("A/A: exit %d\nstderr %s\nstdout %s", code, errs, out)
	}
	only := filepath.Join(r.Dir, "only-counts.txt")
	out, errs, code = gate("only", "-bench", "Work", "-save-only", only, "-head", head)
	// Two repeats, or up to -max-repeat where they disagree (as some do on 386).
	if n := strings.Count(readFile(t, only), "BenchmarkWork "); code != 0 || n < 2 || n > 5 || fileExists(filepath.Join(r.Dir, "only", "base.txt")) {
		t.Fatalf("-save-only: exit %d\nstderr %s\nstdout %s", code, errs, out)
	}
	// A benchmark that skips itself is named with its reason, not judged.
	r.Write("skip_test.go", "package gated\n\nimport \"testing\"\n\nfunc BenchmarkClockSkipped(b *testing.B) { b.Skip(\"not countable: for the test\") }\n")
	clock := r.CommitClockWork()
	out, errs, code = gate("clock", "-bench", "Clock", "-benchtime", "300x", "-max-repeat", "3", "-aa", "-head", clock)
	if !strings.Contains(out, "not counted (1: ") || !strings.Contains(out, "  not countable: for the test (1):\n    ClockSkipped\n") ||
		!strings.Contains(out, "\n1 not counted (listed above): not judged.\n") {
		t.Fatalf("skipped: exit %d\nstderr %s\nstdout %s", code, errs, out)
	}
	if !strings.Contains(out, "counts that disagree (2: ") || !strings.Contains(out, "Clock spread") ||
		!strings.Contains(out, "each benchmark's timed loop") || strings.Count(readFile(t, filepath.Join(r.Dir, "clock", "head.txt")), "BenchmarkClock ") != 3 {
		t.Fatalf("clock-dependent: exit %d\nstderr %s\nstdout %s", code, errs, out)
	}
}

// TestGateInstructionsWithoutValgrind: one line naming the package, exit 2.
func TestGateInstructionsWithoutValgrind(t *testing.T) {
	r := gatetest.New(t)
	r.CommitWork("100")
	t.Chdir(r.Dir)
	bin := t.TempDir() // go and git, and no valgrind
	for _, name := range []string{"go", "git"} {
		if err := os.Symlink(mustLook(t, name), filepath.Join(bin, name)); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("PATH", bin)
	_, errs, code := runOut("gate", "-metric", "instructions", "-aa", "-pkg", ".", "-out", filepath.Join(r.Dir, "x"))
	if code != 2 || strings.Count(errs, "\n") != 1 || !strings.Contains(errs, "valgrind is not installed (Debian package valgrind)") {
		t.Fatalf("exit %d, stderr %q", code, errs)
	}
}

func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// TestGateInstructionsFlags: -repeat 1 cannot see counts that disagree,
// and -save-only counts head alone: both refused in one line, exit 2.
func TestGateInstructionsFlags(t *testing.T) {
	for _, args := range [][]string{
		{"-repeat", "1"},
		{"-repeat", "3", "-max-repeat", "2"},
		{"-save-only", "x.txt", "-base", "HEAD~1"},
		{"-save-only", "x.txt", "-aa"},
	} {
		_, errs, code := runOut(append([]string{"gate", "-metric", "instructions"}, args...)...)
		if code != 2 || strings.Count(errs, "\n") != 1 || !strings.Contains(errs, args[len(args)-2]) && !strings.Contains(errs, args[0]) {
			t.Errorf("%v: exit %d, stderr %q", args, code, errs)
		}
	}
}

func readFile(t *testing.T, path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func mustLook(t *testing.T, name string) string {
	p, err := exec.LookPath(name)
	if err != nil {
		t.Skip(name + " not installed")
	}
	return p
}

// TestRangeUndecided: the gate widens two sides' windows when the
// verdict's range rule could not tell them apart, in instructions or in
// est-cycles at its doubled minimum effect; never one side alone.
func TestRangeUndecided(t *testing.T) {
	counts := func(irs ...float64) []callgrind.Counts {
		var cs []callgrind.Counts
		for _, ir := range irs {
			cs = append(cs, callgrind.Counts{Ir: ir})
		}
		return cs
	}
	u := rangeUndecided(0.005)
	for _, c := range []struct {
		name  string
		sides [][]callgrind.Counts
		want  bool
	}{
		{"apart by less than the effect whatever the repeats", [][]callgrind.Counts{counts(1000, 1001), counts(1003, 1004)}, false},
		{"apart beyond it on every repeat", [][]callgrind.Counts{counts(1000, 1001), counts(1020, 1021)}, false},
		{"the ranges allow -0.53 % to -0.21 % (an A/A seen here)", [][]callgrind.Counts{counts(1381, 1385), counts(1378, 1378)}, true},
		{"one side", [][]callgrind.Counts{counts(1381, 1385)}, false},
	} {
		if got := u(c.sides); got != c.want {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
	}
}

// TestFinishListsWidened: the benchmarks counted at wider windows are
// listed with their iteration counts, and those not counted under the
// reason their harness gave, before the verdict; -format json carries
// both.
func TestFinishListsWidened(t *testing.T) {
	dir := t.TempDir()
	res := &gate.Result{Base: &gate.Side{Path: filepath.Join(dir, "base.txt")}, Head: &gate.Side{Path: filepath.Join(dir, "head.txt")},
		Widened: []gate.Widened{{Name: "Chain", Iters: 20000}},
		NotCounted: []callgrind.Skipped{{Name: "Timers/impl=afterfunc/p=1", Reason: "not countable: real clock"}, {Name: "Wait", Reason: "not countable: a wait"},
			{Name: "Timers/impl=afterfunc/p=2", Reason: "not countable: real clock"}, {Name: "Silent"}}}
	for _, p := range []string{res.Base.Path, res.Head.Path} {
		if err := os.WriteFile(p, []byte("BenchmarkChain 20000 450 instructions/op\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var out strings.Builder
	if err := (&instrFlags{metric: "instructions"}).finish(&out, res); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "widened (1: ") || !strings.Contains(out.String(), "\n  Chain at 20000 iterations\n") {
		t.Fatalf("printed:\n%s", out.String())
	}
	want := "not counted (4: skipped by the benchmarks' harness when listed; not judged):\n" +
		"  not countable: real clock (2):\n    Timers/impl=afterfunc/p=1\n    Timers/impl=afterfunc/p=2\n" +
		"  not countable: a wait (1):\n    Wait\n  no reason given (1):\n    Silent\n"
	if !strings.Contains(out.String(), want) {
		t.Fatalf("printed:\n%s\nwant in it:\n%s", out.String(), want)
	}
	var js strings.Builder
	g := gateFlags{verdictFlags: verdictFlags{format: "json"}, instr: instrFlags{metric: "instructions"}}
	if err := g.output(&js, res, nil, nil); err != nil {
		t.Fatal(err)
	}
	var rep jsonReport
	if err := json.Unmarshal([]byte(js.String()), &rep); err != nil || rep.Gate == nil || len(rep.Gate.NotCounted) != 4 ||
		rep.Gate.NotCounted[1] != (jsonNotCounted{"Wait", "not countable: a wait"}) || len(rep.Gate.Widened) != 1 {
		t.Fatalf("json %v:\n%s", err, js.String())
	}
}
