package overlay_test

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/loopbench/loopbench/internal/callgrind"
	"github.com/loopbench/loopbench/internal/overlay"
	"github.com/loopbench/loopbench/internal/valgrind"
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
// dumped under its name and N, and counts its loop alone. The setups
// (2 million multiply-adds before ResetTimer and before B.Loop, 20,000
// with the timer stopped in every iteration) would count 100 times the
// loop or more; each window counts what Plain's does within 10 % (the
// timer calls inside StopStart's loop are its only extra).
func TestWindowsUnderCallgrind(t *testing.T) {
	vg, err := exec.LookPath("valgrind")
	if err != nil {
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
	if !callgrind.HasTestingWindows(bin) || callgrind.HasWindows(bin) {
		t.Fatal("the binary built with the overlay is not seen as counting its windows in testing")
	}
	out := filepath.Join(dir, "cg.out")
	cmd := exec.Command(vg, append(append([]string{}, callgrind.Flags...), callgrind.WindowFlag, "--callgrind-out-file="+out,
		bin, "-test.run=^$", "-test.bench=.", "-test.benchtime=100x")...)
	cmd.Env = append(append(os.Environ(), callgrind.Env...), valgrind.TestingWindowsEnv+"=1")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if b, err := cmd.Output(); err != nil {
		t.Fatalf("%v: %s\n%s", err, b, stderr.Bytes())
	}
	dumps, err := callgrind.ReadDumps(out)
	if err != nil {
		t.Fatal(err)
	}
	ir := map[string]float64{}
	for _, d := range dumps {
		if name, n, ok := valgrind.ParseWindowReason(d.Reason); ok && n == 100 {
			ir[name] = d.Counts.Ir / 100
		}
	}
	plain := ir["Plain"]
	if len(ir) != 4 || plain < 200 {
		t.Fatalf("windows per op %v: want Plain, Setup, Loop and StopStart at N=100", ir)
	}
	for _, name := range []string{"Setup", "Loop", "StopStart"} {
		if r := ir[name] / plain; r < 0.9 || r > 1.1 {
			t.Errorf("%s counted %.0f instructions/op, Plain %.0f: ratio %.2f, want 1 (its setup left out)", name, ir[name], plain, r)
		}
	}
}
