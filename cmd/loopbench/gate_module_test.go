package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/loopbench/loopbench/internal/harness/gate"
	"github.com/loopbench/loopbench/internal/harness/gate/gatetest"
	"github.com/loopbench/loopbench/internal/measure/valgrind"
)

// hotSource is package hot of a throwaway module: three benchmarks in
// the shapes whose timed loop alone a window must count, each on its own
// hot path (loopSteps multiply-adds an operation for Loop), and one that
// skips itself. Paused stops its timer in one iteration of ten only: each
// stop reads the memory statistics twice, stopping the world, which is
// slow under valgrind.
func hotSource(loopSteps string) map[string]string {
	return map[string]string{
		"hot/hot.go": `// Package hot is the code the benchmarks time.
package hot

var sink uint64

//go:noinline
func spin(n int) {
	x := sink
	for range n {
		x = x*6364136223846793005 + 1442695040888963407
	}
	sink = x
}

// Setup is a large setup's work.
func Setup() { spin(1_000_000) }

// Reset is BenchmarkReset's operation.
func Reset() { spin(300) }

// Loop is BenchmarkLoop's operation.
func Loop() { spin(` + loopSteps + `) }

// Paused is BenchmarkPaused's operation.
func Paused() { spin(300) }
`,
		"hot/hot_test.go": `package hot

import "testing"

func BenchmarkReset(b *testing.B) {
	Setup()
	b.ResetTimer()
	for range b.N {
		Reset()
	}
}

func BenchmarkLoop(b *testing.B) {
	Setup()
	for b.Loop() {
		Loop()
	}
}

func BenchmarkPaused(b *testing.B) {
	for i := range b.N {
		if i%10 == 0 {
			b.StopTimer()
			spin(10_000)
			b.StartTimer()
		}
		Paused()
	}
}

func BenchmarkWaits(b *testing.B) { b.Skip("not countable: it waits on the real clock") }
`,
		"other/other_test.go": "package other\n\nimport \"testing\"\n\nfunc BenchmarkOther(b *testing.B) {}\n",
	}
}

// TestGateOtherModule is docs/gate.md's recipe on a throwaway module that
// is not loopbench, unchanged: no -pkg (its package is found by -bench),
// windows by the testing package's overlay. Its A/A gate passes; a
// second commit that makes one benchmark's hot path 10 % longer is exit
// 1 naming that benchmark alone; the benchmark that skips itself is
// listed as not counted, in the text and the JSON verdicts.
func TestGateOtherModule(t *testing.T) {
	needValgrind(t)
	if !valgrind.Supported {
		t.Skipf("no client requests for %s: the overlay's windows are not counted here", runtime.GOARCH)
	}
	r := gatetest.New(t)
	for name, src := range hotSource("300") {
		r.Write(name, src)
	}
	r.Commit("hot")
	t.Chdir(r.Dir)
	args := []string{"gate", "-metric", "instructions", "-bench", "Reset|Loop|Paused|Waits", "-benchtime", "200x", "-j", "2"}
	out, errs, code := runOut(append(args, "-base", "HEAD", "-head", "HEAD", "-out", filepath.Join(r.Dir, "aa"))...)
	if code != 0 || !strings.Contains(out, "counted: each benchmark's timed loop") || strings.Count(readFile(t, filepath.Join(r.Dir, "aa", "head.txt")), "BenchmarkLoop ") != 2 {
		t.Fatalf("A/A: exit %d\nstderr %s\nstdout %s", code, errs, out)
	}
	r.Write("hot/hot.go", hotSource("330")["hot/hot.go"])
	r.Commit("a longer Loop")
	out, errs, code = runOut(append(args, "-base", "HEAD~1", "-head", "HEAD", "-format", "json", "-out", filepath.Join(r.Dir, "ab"))...)
	var rep gate.JSONReport
	if err := json.Unmarshal([]byte(out), &rep); err != nil || code != 1 || rep.Gate == nil {
		t.Fatalf("a longer Loop: exit %d, %v\nstderr %s\nstdout %s", code, err, errs, out)
	}
	for _, c := range rep.Comparisons {
		if regressed := c.Verdict == "regression"; regressed != (c.Name == "Loop" && c.Unit == "instructions/op" || c.Name == "Loop" && c.Unit == "est-cycles/op") {
			t.Errorf("%s %s: %s (delta %v)", c.Name, c.Unit, c.Verdict, deref(c.Delta))
		}
	}
	if !hasRegression(rep, "Loop", "instructions/op") || len(rep.Gate.NotCounted) != 1 || rep.Gate.NotCounted[0].Name != "Waits" ||
		!strings.Contains(rep.Gate.NotCounted[0].Reason, "waits on the real clock") {
		t.Fatalf("verdicts: %s", out)
	}
}

func deref(p *float64) float64 {
	if p == nil {
		return 0
	}
	return *p
}

// TestGateWritesNoResultsInCheckout: without -out, the gate writes its
// files to a new directory under the temporary directory, and leaves
// nothing in the checkout.
func TestGateWritesNoResultsInCheckout(t *testing.T) {
	r := gatetest.New(t)
	fast := r.CommitWork("100")
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	t.Chdir(r.Dir)
	out, errs, code := runOut("gate", "-base", fast, "-head", fast, "-pkg", ".", "-count", "4", "-benchtime", "5x")
	if code != 0 {
		t.Fatalf("exit %d\nstderr %s\nstdout %s", code, errs, out)
	}
	if st := r.Git("status", "--porcelain", "--untracked-files=all"); st != "" {
		t.Errorf("the gate left in the checkout:\n%s", st)
	}
	dirs, _ := filepath.Glob(filepath.Join(tmp, "gate-*", "gate.txt"))
	if len(dirs) != 1 {
		t.Errorf("gate.txt under the temporary directory: %v", dirs)
	}
	if _, err := os.Stat(filepath.Join(r.Dir, "results")); !os.IsNotExist(err) {
		t.Errorf("results/ in the checkout: %v", err)
	}
}

// TestGateMissingPkg: a -pkg that does not exist is one line naming it,
// exit 2.
func TestGateMissingPkg(t *testing.T) {
	r := gatetest.New(t)
	fast := r.CommitWork("100")
	t.Chdir(r.Dir)
	_, errs, code := runOut("gate", "-base", fast, "-head", fast, "-pkg", "./nosuch", "-count", "4", "-out", filepath.Join(t.TempDir(), "x"))
	if code != 2 || strings.Count(strings.TrimSpace(errs), "\n") != 0 || !strings.Contains(errs, "-pkg ./nosuch: no such package") {
		t.Fatalf("exit %d, stderr %q", code, errs)
	}
}
