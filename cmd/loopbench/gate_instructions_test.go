package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loopbench/loopbench/internal/harness/gate/gatetest"
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
