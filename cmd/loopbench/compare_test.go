package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loopbench/loopbench/internal/harness/verdict"
)

// synth writes a results file: n samples per benchmark around the given
// centers (ns/op, and req/s for the echo one), with 1 % noise from seed.
func synth(t *testing.T, name string, seed uint64, n int, scale float64, cfg string) string {
	t.Helper()
	r := rand.New(rand.NewPCG(seed, seed+1))
	var b strings.Builder
	b.WriteString(cfg)
	b.WriteString("Unit req/s better=higher\n")
	for range n {
		noise := func() float64 { return 1 + (r.Float64()-0.5)*0.02 }
		fmt.Fprintf(&b, "BenchmarkCallSoon/ready=ringbuffer/batch=1000-2\t1000000\t%.3f ns/op\t0 B/op\t0 allocs/op\n", 7.0*scale*noise())
		fmt.Fprintf(&b, "BenchmarkEcho/conns=10-2\t10000\t6000 ns/op\t%.0f req/s\n", 150000/scale*noise())
	}
	return writeFile(t, name, b.String())
}

func writeFile(t *testing.T, name, content string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

const machineA = "goos: linux\ncpu: Test CPU\ngo: go1.26\n"

// runOut runs the CLI and returns stdout, stderr and the exit code, with
// temporary directories replaced by DIR for golden files.
func runOut(args ...string) (string, string, int) {
	var out, errb bytes.Buffer
	err := run(args, &out, &errb)
	clean := func(s string) string {
		for _, a := range args {
			if filepath.IsAbs(a) {
				s = strings.ReplaceAll(s, filepath.Dir(a), "DIR")
			}
		}
		return s
	}
	return clean(out.String()), clean(errb.String()), exitCode(err)
}

func TestCompareRegression(t *testing.T) {
	base := synth(t, "base.txt", 1, 10, 1.0, machineA)
	head := synth(t, "head.txt", 2, 10, 1.10, machineA) // 10 % slower, 9 % fewer req/s
	out, errs, code := runOut("compare", "-min-effect", "5%", base, head)
	if code != 1 || !strings.Contains(errs, "2 regressions") {
		t.Fatalf("exit %d, stderr %q\n%s", code, errs, out)
	}
	golden(t, "compare_regression.golden", out)
	// The same change under a 15 % threshold is not a regression.
	if _, errs, code := runOut("compare", "-min-effect", "15%", base, head); code != 0 {
		t.Fatalf("under -min-effect 15%%: exit %d %s", code, errs)
	}
}

func TestCompareSameDistribution(t *testing.T) {
	base := synth(t, "base.txt", 3, 10, 1.0, machineA)
	head := synth(t, "head.txt", 4, 10, 1.0, machineA)
	out, errs, code := runOut("compare", base, head)
	if code != 0 {
		t.Fatalf("two samples of one distribution: exit %d %s\n%s", code, errs, out)
	}
	golden(t, "compare_same.golden", out)
}

// TestCompareTooFewSamples: two samples a side cannot reach the level, so
// a timing is undecided, with -require-equivalence or without: exit 3,
// with the samples that would do. So are 3+3 and 1+5 samples at alpha
// 0.05, alike or apart; 4+4 alike can reach it, found nothing, and pass.
func TestCompareTooFewSamples(t *testing.T) {
	base := synth(t, "base.txt", 5, 2, 1.0, machineA)
	head := synth(t, "head.txt", 6, 2, 1.5, machineA)
	out, errs, code := runOut("compare", "-require-equivalence", base, head)
	if code != 3 || !strings.Contains(errs, "5 per side would do") {
		t.Fatalf("exit %d, stderr %q\n%s", code, errs, out)
	}
	golden(t, "compare_undecided.golden", out)
	for _, c := range []struct {
		n1, n2 int
		scale  float64
		code   int
	}{{2, 2, 1.5, 3}, {3, 3, 1, 3}, {3, 3, 1.5, 3}, {1, 5, 1, 3}, {5, 1, 1.5, 3}, {4, 4, 1, 0}} {
		base := synth(t, "base.txt", 7, c.n1, 1.0, machineA)
		head := synth(t, "head.txt", 8, c.n2, c.scale, machineA)
		out, errs, code := runOut("compare", "-filter", ".unit:sec/op", base, head)
		if code != c.code || (code == 3) != strings.Contains(errs, "comparisons undecided: too few samples") {
			t.Errorf("%d+%d x%g: exit %d, want %d; stderr %q\n%s", c.n1, c.n2, c.scale, code, c.code, errs, out)
		}
	}
}

const goTestFile = `goos: linux
goarch: amd64
pkg: github.com/loopbench/loopbench/bench
cpu: Test CPU
BenchmarkCallSoon/ready=ringbuffer/batch=1000-2   	  100000	         7.01 ns/op	       0 B/op	       0 allocs/op
BenchmarkCallSoon/ready=ringbuffer/batch=1000-2   	  100000	         7.03 ns/op	       0 B/op	       0 allocs/op
BenchmarkCallSoon/ready=ringbuffer/batch=1000-2   	  100000	         6.99 ns/op	       0 B/op	       0 allocs/op
BenchmarkCallSoon/ready=ringbuffer/batch=1000-2   	  100000	         7.00 ns/op	       0 B/op	       0 allocs/op
BenchmarkCallSoon/ready=ringbuffer/batch=1000-2   	  100000	         7.02 ns/op	       0 B/op	       0 allocs/op
BenchmarkCallSoon/ready=ringbuffer/batch=1000-2   	  100000	         7.04 ns/op	       0 B/op	       0 allocs/op
BenchmarkOnlyInGoTest-2   	  100000	         9 ns/op
PASS
ok  	github.com/loopbench/loopbench/bench	3.1s
`

const runFile = `goos: linux
goarch: amd64
cpu: Test CPU
kernel: 6.1.0
go: go1.26.8
gomaxprocs: 2
commit: 0123456789abcdef
BenchmarkCallSoon/ready=ringbuffer/batch=1000-2	100000	7.02 ns/op	0 B/op	0 allocs/op
BenchmarkCallSoon/ready=ringbuffer/batch=1000-2	100000	7.00 ns/op	0 B/op	0 allocs/op
BenchmarkCallSoon/ready=ringbuffer/batch=1000-2	100000	6.98 ns/op	0 B/op	0 allocs/op
BenchmarkCallSoon/ready=ringbuffer/batch=1000-2	100000	7.01 ns/op	0 B/op	0 allocs/op
BenchmarkCallSoon/ready=ringbuffer/batch=1000-2	100000	7.03 ns/op	0 B/op	0 allocs/op
BenchmarkCallSoon/ready=ringbuffer/batch=1000-2	100000	7.00 ns/op	0 B/op	0 allocs/op
BenchmarkOnlyInRun-2	100000	3 ns/op
`

// TestCompareCases: every refusal and listing of compare, with its exit
// code and its one-line message (golden).
func TestCompareCases(t *testing.T) {
	dir := t.TempDir()
	file := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	base := file("base.txt", runFile)
	gotest := file("gotest.txt", goTestFile)
	load := file("load.txt", "goos: linux\ngoarch: amd64\ncpu: Test CPU\nkernel: 6.1.0\ngo: go1.26.8\ngomaxprocs: 2\ncommit: 0123456789abcdef\nBenchmarkLoad/label=127.0.0.1:9000/size=1024/conns=10/rate=0-2\t1000\t51000 req/s\n")
	procs8 := file("procs8.txt", strings.ReplaceAll(strings.ReplaceAll(runFile, "gomaxprocs: 2", "gomaxprocs: 8"), "-2\t", "-8\t"))
	otherCPU := file("othercpu.txt", strings.ReplaceAll(runFile, "cpu: Test CPU", "cpu: Other CPU"))
	twoCommits := file("twocommits.txt", runFile+strings.ReplaceAll(runFile, "commit: 0123456789abcdef", "commit: fedcba9876543210"))
	malformed := file("malformed.txt", runFile+"BenchmarkCallSoon/ready=ringbuffer/batch=1000-2\t100000\t7.0\n")
	// go test -bench's default: one sample a side. A 30 % slower timing
	// is undecided, exit 3: one sample a side cannot reach alpha (never an
	// exact regression); B/op 1 against 2 is setup amortised over b.N,
	// not a regression.
	oneBBase := file("oneb_base.txt", "goos: linux\nBenchmarkX-2\t1000\t100 ns/op\t1 B/op\t0 allocs/op\n")
	oneBHead := file("oneb_head.txt", "goos: linux\nBenchmarkX-2\t1000\t100 ns/op\t2 B/op\t0 allocs/op\n")
	oneBase := file("one_base.txt", "goos: linux\nBenchmarkX-2\t1000\t100 ns/op\t0 allocs/op\n")
	oneHead := file("one_head.txt", "goos: linux\nBenchmarkX-2\t1000\t130 ns/op\t0 allocs/op\n")
	// A regression and a malformed line: exit 1, both reported.
	slowMalformed := file("slow_malformed.txt", strings.ReplaceAll(runFile, "\t0 allocs/op", "\t1 allocs/op")+"BenchmarkCallSoon/ready=ringbuffer/batch=1000-2\t100000\t7.0\n")
	empty := file("empty.txt", "")
	nobench := file("nobench.txt", "goos: linux\nPASS\n")
	cases := []struct {
		name string
		args []string
		code int
	}{
		{"gotest_vs_run", []string{base, gotest}, 0},
		{"nothing_in_common", []string{base, load}, 2},
		{"gomaxprocs", []string{base, procs8}, 2},
		{"other_machine", []string{base, otherCPU}, 2},
		// OnlyInRun has one sample a side: undecided once compared.
		{"other_machine_forced", []string{"-force", base, otherCPU}, 3},
		{"several_commits", []string{base, twoCommits}, 2},
		{"several_commits_filtered", []string{"-filter", "commit:0123456789abcdef", base, twoCommits}, 3},
		{"malformed", []string{base, malformed}, 2},
		{"regression_and_malformed", []string{base, slowMalformed}, 1},
		{"one_sample_each", []string{oneBase, oneHead}, 3},
		{"one_sample_each_equivalence", []string{"-require-equivalence", oneBase, oneHead}, 3},
		{"one_sample_B/op", []string{oneBBase, oneBHead}, 3},
		{"bare_effect", []string{"-min-effect", "5", base, base}, 2},
		{"empty", []string{base, empty}, 2},
		{"no_benchmarks", []string{nobench, base}, 2},
		{"missing", []string{base, filepath.Join(dir, "missing.txt")}, 2},
		{"one_file", []string{base}, 2},
		{"bad_effect", []string{"-min-effect", "lots", base, base}, 2},
		{"bad_filter", []string{"-filter", "(", base, base}, 2},
	}
	var all strings.Builder
	for _, c := range cases {
		out, errs, code := runOut(append([]string{"compare"}, c.args...)...)
		out, errs = strings.ReplaceAll(out, dir, "DIR"), strings.ReplaceAll(errs, dir, "DIR")
		if code != c.code {
			t.Errorf("%s: exit %d, want %d; stderr %q", c.name, code, c.code, errs)
		}
		if c.code == 2 && strings.Count(errs, "\n") != 1 && !strings.HasPrefix(errs, "usage") {
			t.Errorf("%s: want one line on stderr, got %q", c.name, errs)
		}
		fmt.Fprintf(&all, "== %s: exit %d\n-- stderr\n%s-- stdout\n%s", c.name, code, errs, out)
	}
	golden(t, "compare_cases.golden", all.String())
}

// TestCompareJSON: -format json prints one object with every comparison
// (unrounded values in the files' units, null where not finite), the exit
// code and message, and the lists; the exit code is the text output's.
func TestCompareJSON(t *testing.T) {
	base := synth(t, "base.txt", 1, 10, 1.0, machineA)
	head := synth(t, "head.txt", 2, 10, 1.10, machineA)
	only := writeFile(t, "only.txt", machineA+"BenchmarkX-2\t1000\t100 ns/op\t1 B/op\t0 allocs/op\nBenchmarkCallSoon/ready=ringbuffer/batch=1000-2\t1000\t7 ns/op\t2 B/op\t0 allocs/op\n")
	var all strings.Builder
	for _, c := range []struct {
		name string
		args []string
		code int
	}{
		{"regression", []string{base, head}, 1},
		{"one_sample_and_only_in_head", []string{"-require-equivalence", synth(t, "one.txt", 3, 1, 1.0, machineA), only}, 3},
		{"bad_file", []string{base, filepath.Join(t.TempDir(), "missing.txt")}, 2},
	} {
		out, errs, code := runOut(append([]string{"compare", "-format", "json"}, c.args...)...)
		var r verdict.JSONReport
		if err := json.Unmarshal([]byte(out), &r); err != nil || code != c.code || r.Exit != code {
			t.Fatalf("%s: exit %d (JSON %d), %v\n%s\n%s", c.name, code, r.Exit, err, errs, out)
		}
		fmt.Fprintf(&all, "== %s: exit %d\n%s", c.name, code, out)
	}
	golden(t, "compare_json.golden", all.String())
	if _, errs, code := runOut("compare", "-format", "yaml", base, head); code != 2 || !strings.Contains(errs, `-format "yaml": want text or json`) {
		t.Fatalf("-format yaml: exit %d %q", code, errs)
	}
}
