package overlay_test

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/loopbench/loopbench/internal/harness/callgrind"
	"github.com/loopbench/loopbench/internal/harness/overlay"
	"github.com/loopbench/loopbench/internal/measure/valgrind"
)

// TestPatchFitsInstalledToolchain: every anchor matches the testing
// package of the toolchain that runs the test, and the overlay names
// benchmark.go and the three added files in its GOROOT.
func TestPatchFitsInstalledToolchain(t *testing.T) {
	tc, err := overlay.Current(".")
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := valgrind.RequestSource(tc.GOARCH); !ok {
		t.Skipf("no client requests for %s: the patch is not made here", tc.GOARCH)
	}
	files, err := overlay.Files(tc)
	if err != nil {
		t.Fatalf("%s: %v", tc.Version, err)
	}
	dir := filepath.Join(tc.GOROOT, "src", "testing")
	for _, name := range []string{"benchmark.go", "loopbench_window.go", "loopbench_window_const.go", "loopbench_window_" + tc.GOARCH + ".s"} {
		if _, ok := files[filepath.Join(dir, name)]; !ok {
			t.Errorf("no %s in the overlay", name)
		}
	}
	patched := string(files[filepath.Join(dir, "benchmark.go")])
	for _, want := range []string{"func (b *B) lbStartTimer() {", "func (b *B) lbStopTimer() {", "func (b *B) lbResetTimer() {", "func (b *B) lbRunN(n int) {", "\t\tlbLoopBegin(b)\n\t\tb.ResetTimer()\n"} {
		if strings.Count(patched, want) != 1 {
			t.Errorf("patched benchmark.go has %q %d times", want, strings.Count(patched, want))
		}
	}
	if asm := string(files[filepath.Join(dir, "loopbench_window_"+tc.GOARCH+".s")]); !strings.Contains(asm, "TEXT ·lbClientRequest(SB)") {
		t.Errorf("assembly declares no lbClientRequest:\n%s", asm)
	}
}

// TestPatchUnfit: a benchmark.go without an anchor (or with one twice)
// is refused with an error naming the Go version and the anchor.
func TestPatchUnfit(t *testing.T) {
	root := t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, "src", "testing"), 0o755); err != nil {
		t.Fatal(err)
	}
	src := "package testing\n\nfunc (b *B) StartTimer() {}\nfunc (b *B) StopTimer() {}\nfunc (b *B) ResetTimer() {}\nfunc (b *B) runN(n int) {}\n"
	for _, c := range []struct{ src, missing string }{
		{src, `"\t\tb.N = 0\n\t\tb.ResetTimer()\n" 0 times`},
		{src + "func (b *B) StopTimer() {}\n", `"func (b *B) StopTimer() {" 2 times`},
	} {
		if err := os.WriteFile(filepath.Join(root, "src", "testing", "benchmark.go"), []byte(c.src), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := overlay.Files(overlay.Toolchain{GOROOT: root, Version: "go1.99-fake", GOARCH: "amd64"})
		var unfit *overlay.UnfitError
		if !errors.As(err, &unfit) || !strings.Contains(err.Error(), "go1.99-fake") || !strings.Contains(err.Error(), c.missing) {
			t.Errorf("error %v, want one naming go1.99-fake and %s", err, c.missing)
		}
	}
	if _, err := overlay.Files(overlay.Toolchain{GOROOT: root, Version: "go1.99-fake", GOARCH: "riscv64"}); err == nil || !strings.Contains(err.Error(), "GOARCH riscv64") {
		t.Errorf("riscv64: %v", err)
	}
}

// TestWindowsUnderCallgrind builds testdata/spin with the overlay and
// counts it under callgrind at 100 iterations: each benchmark's window is
// dumped under its name and N, in the pass of 100 alone (not testing's
// first pass of one), and counts its loop alone. The setups (2 million
// multiply-adds before ResetTimer, before B.Loop, and on a
// sub-benchmark's first run; 20,000 with the timer stopped in every
// iteration) would count 100 times the loop or more; each window counts
// what Plain's does within 10 % (the timer calls inside StopStart's loop
// are its only extra). The counted pass starts with 64 MiB of free heap
// and samples no allocations for the memory profile.
func TestWindowsUnderCallgrind(t *testing.T) {
	bin := buildSpin(t)
	ir, out := countSpin(t, bin, "100x")
	plain := ir["Plain@100"] / 100
	if len(ir) != 6 || plain < 200 {
		t.Fatalf("windows %v: want Plain, Setup, Loop, StopStart, Shared/case and State at N=100 alone", ir)
	}
	for _, name := range []string{"Setup", "Loop", "StopStart", "Shared/case"} {
		if r := ir[name+"@100"] / 100 / plain; r < 0.9 || r > 1.1 {
			t.Errorf("%s counted %.0f instructions/op, Plain %.0f: ratio %.2f, want 1 (its setup left out)", name, ir[name+"@100"]/100, plain, r)
		}
	}
	if free := metric(out, "State", "free-heap-bytes"); free < 64<<20 {
		t.Errorf("State's window started with %.0f bytes of free heap, want 64 MiB or more", free)
	}
	if rate := metric(out, "State", "mem-profile-rate"); rate != 0 {
		t.Errorf("State's window ran with runtime.MemProfileRate %v, want 0", rate)
	}
}

// TestWindowsDrawAlike: a benchmark that draws its work from math/rand's
// global source, seeded from the clock at init, counts the same in two
// processes, also when another benchmark drew from it first in one of
// them: each pass starts the source from the same seed.
func TestWindowsDrawAlike(t *testing.T) {
	bin := buildSpin(t)
	alone, out1 := countSpinBench(t, bin, "^BenchmarkDraw$", "100x")
	after, out2 := countSpinBench(t, bin, "^Benchmark(Consume|Draw)$", "100x")
	if d1, d2 := metric(out1, "Draw", "drawn"), metric(out2, "Draw", "drawn"); d1 != d2 || d1 <= 0 {
		t.Errorf("Draw drew %v alone and %v after Consume, want the same draws", d1, d2)
	}
	a, b := alone["Draw@100"], after["Draw@100"]
	if a < 10000 || b < 10000 {
		t.Fatalf("Draw's windows: alone %v, after Consume %v", alone, after)
	}
	if d := math.Abs(a-b) / a; d > 0.001 {
		t.Errorf("Draw counted %.0f instructions alone and %.0f after Consume: %.2f %% apart, want the same draws", a, b, 100*d)
	}
}

// TestWindowsAtOneIteration: at -test.benchtime=1x go test's only pass,
// the one that makes the setups, is counted, and its window still holds
// one operation alone: each at most a few thousand instructions above
// Plain's (a setup is 8 million). No lower bound: on a loaded machine
// Loop's window of 1474 instructions once counted 709, less than its
// operation (most likely the monitor thread's work, left out with its
// callees, reaching into a window this short).
func TestWindowsAtOneIteration(t *testing.T) {
	bin := buildSpin(t)
	ir, _ := countSpin(t, bin, "1x")
	t.Logf("instructions by window: %v", ir)
	plain := ir["Plain@1"]
	for _, name := range []string{"Setup", "Loop", "StopStart", "Shared/case"} {
		if c, ok := ir[name+"@1"]; !ok || c <= 0 || c > plain+5000 {
			t.Errorf("%s at one iteration: %v instructions (window %v), Plain %v", name, c, ok, plain)
		}
	}
}

// buildSpin builds testdata/spin with the overlay, or skips the test
// where its windows are not counted.
func buildSpin(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("valgrind"); err != nil {
		t.Skip("valgrind not installed (Debian package valgrind): the windows are not counted")
	}
	if !valgrind.Supported || os.Getenv("GOARCH") != "" && os.Getenv("GOARCH") != runtime.GOARCH {
		t.Skipf("no client requests for %s here: the windows are not counted", runtime.GOARCH)
	}
	tc, err := overlay.Current(".")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	ov, err := overlay.Write(dir, tc)
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "spin.test")
	if out, err := exec.Command("go", "test", "-c", "-overlay", ov, "-o", bin, "./testdata/spin").CombinedOutput(); err != nil {
		t.Fatalf("go test -c -overlay: %v\n%s", err, out)
	}
	if !callgrind.HasWindows(bin) {
		t.Fatal("the binary built with the overlay is not seen as counting its windows")
	}
	return bin
}

// countSpin runs every benchmark of bin under callgrind at benchtime,
// asked to count windows, and returns each window's instructions by
// "name@N" and the benchmarks' output.
func countSpin(t *testing.T, bin, benchtime string) (map[string]float64, string) {
	return countSpinBench(t, bin, "^Benchmark(Plain|Setup|Loop|StopStart|Shared|State)$", benchtime)
}

// countSpinBench is countSpin of the benchmarks that pattern matches.
func countSpinBench(t *testing.T, bin, pattern, benchtime string) (map[string]float64, string) {
	t.Helper()
	out := filepath.Join(t.TempDir(), "cg.out")
	cmd := exec.Command("valgrind", append(append([]string{}, callgrind.Flags...), callgrind.WindowFlag, "--callgrind-out-file="+out,
		bin, "-test.run=^$", "-test.bench="+pattern, "-test.benchtime="+benchtime)...)
	cmd.Env = append(os.Environ(), callgrind.WindowEnv()...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdout, err := cmd.Output()
	if err != nil {
		t.Fatalf("%v: %s\n%s", err, stdout, stderr.Bytes())
	}
	dumps, err := callgrind.ReadDumps(out)
	if err != nil {
		t.Fatal(err)
	}
	ir := map[string]float64{}
	for _, d := range dumps {
		// A parent benchmark's pass of one iteration at 1x is counted
		// too: its window is empty, its sub-benchmarks' are their own.
		if name, n, ok := valgrind.ParseWindowReason(d.Reason); ok && name != "Shared" {
			ir[fmt.Sprintf("%s@%d", name, n)] = d.Counts.Ir
		}
	}
	return ir, string(stdout)
}

// metric is the value of unit on benchmark name's result line in out,
// or -1.
func metric(out, name, unit string) float64 {
	for _, line := range strings.Split(out, "\n") {
		f := strings.Fields(line)
		if len(f) < 2 || f[0] != "Benchmark"+name {
			continue
		}
		for i := 1; i+1 < len(f); i++ {
			if f[i+1] == unit {
				v, err := strconv.ParseFloat(f[i], 64)
				if err == nil {
					return v
				}
			}
		}
	}
	return -1
}
