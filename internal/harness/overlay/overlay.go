// Package overlay builds a `go test -overlay` file that patches the
// standard library's testing package of the toolchain at hand, so that
// any module's benchmarks, unchanged (loopbench's own ./bench too),
// count their timed loops in callgrind windows (package valgrind's
// client requests): instrumentation on only while a benchmark's timer
// runs, the counts zeroed by ResetTimer, and a dump under the
// benchmark's name and N (valgrind.WindowReason) when its counted pass
// ends. A binary built
// with it counts windows only when run under callgrind with
// valgrind.WindowsEnv set; anywhere else it runs as without.
//
// The patch is made at gate time from $GOROOT/src/testing/benchmark.go:
// B's StartTimer, StopTimer, ResetTimer and runN are renamed (each
// anchor must match once) and wrapped by a new file of the package, the
// first call of B.Loop counts its pass, and the client requests come
// from an assembly file copied from package valgrind's. A toolchain the
// patch does not fit gets an *UnfitError naming the Go version.
package overlay

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/loopbench/loopbench/internal/measure/valgrind"
)

//go:embed window.go.txt
var windowSource string

// Toolchain is the Go toolchain whose testing package is patched.
type Toolchain struct {
	GOROOT, Version, GOARCH string
}

// Current asks the go command on PATH, run in dir, for its toolchain.
func Current(dir string) (Toolchain, error) {
	cmd := exec.Command("go", "env", "GOROOT", "GOVERSION", "GOARCH")
	cmd.Dir = dir
	out, err := cmd.Output()
	if err != nil {
		return Toolchain{}, fmt.Errorf("go env: %v", err)
	}
	f := strings.Fields(string(out))
	if len(f) != 3 {
		return Toolchain{}, fmt.Errorf("go env GOROOT GOVERSION GOARCH printed %q", out)
	}
	return Toolchain{f[0], f[1], f[2]}, nil
}

// UnfitError says the patch does not fit a toolchain: the gate then
// counts by the difference of two processes.
type UnfitError struct {
	Version string
	Reason  string
}

func (e *UnfitError) Error() string {
	return fmt.Sprintf("the testing package of %s does not take the window patch (%s)", e.Version, e.Reason)
}

// edit is one anchored edit of benchmark.go: old must occur exactly once.
type edit struct{ old, new string }

// edits rename the timer's methods and runN, which the added file wraps,
// and count a B.Loop benchmark's pass from the first call of Loop (which
// resets the timer there).
var edits = []edit{
	{"func (b *B) StartTimer() {", "func (b *B) lbStartTimer() {"},
	{"func (b *B) StopTimer() {", "func (b *B) lbStopTimer() {"},
	{"func (b *B) ResetTimer() {", "func (b *B) lbResetTimer() {"},
	{"func (b *B) runN(n int) {", "func (b *B) lbRunN(n int) {"},
	{"\t\tb.N = 0\n\t\tb.ResetTimer()\n", "\t\tb.N = 0\n\t\tlbLoopBegin(b)\n\t\tb.ResetTimer()\n"},
}

// Patch returns the patched benchmark.go: every edit's anchor must occur
// exactly once.
func Patch(src, version string) (string, error) {
	for _, e := range edits {
		switch n := strings.Count(src, e.old); n {
		case 1:
			src = strings.Replace(src, e.old, e.new, 1)
		default:
			return "", &UnfitError{version, fmt.Sprintf("benchmark.go has %q %d times, want once", e.old, n)}
		}
	}
	return src, nil
}

// Files returns the overlay of toolchain t: each file of its testing
// package to replace or add, by its path in GOROOT, and its contents.
func Files(t Toolchain) (map[string][]byte, error) {
	asm, ok := valgrind.RequestSource(t.GOARCH)
	if !ok {
		return nil, &UnfitError{t.Version, "no client requests for GOARCH " + t.GOARCH}
	}
	text := strings.Replace(string(asm), "·"+valgrind.RequestFunc+"(SB)", "·lbClientRequest(SB)", 1)
	if text == string(asm) {
		return nil, &UnfitError{t.Version, "valgrind's assembly does not declare " + valgrind.RequestFunc}
	}
	dir := filepath.Join(t.GOROOT, "src", "testing")
	src, err := os.ReadFile(filepath.Join(dir, "benchmark.go"))
	if err != nil {
		return nil, &UnfitError{t.Version, err.Error()}
	}
	patched, err := Patch(string(src), t.Version)
	if err != nil {
		return nil, err
	}
	consts := "// Added by loopbench gate's overlay.\n\npackage testing\n\n" + valgrind.RequestConstants("lb")
	return map[string][]byte{
		filepath.Join(dir, "benchmark.go"):                    []byte(patched),
		filepath.Join(dir, "loopbench_window.go"):             []byte(windowSource),
		filepath.Join(dir, "loopbench_window_const.go"):       []byte(consts),
		filepath.Join(dir, "loopbench_window_"+t.GOARCH+".s"): []byte(text),
	}, nil
}

// Write writes toolchain t's overlay files and the overlay JSON that
// names them to dir, and returns the JSON's path, for go build -overlay.
func Write(dir string, t Toolchain) (string, error) {
	files, err := Files(t)
	if err != nil {
		return "", err
	}
	replace := map[string]string{}
	for target, b := range files {
		p := filepath.Join(dir, filepath.Base(target))
		if err := os.WriteFile(p, b, 0o644); err != nil {
			return "", err
		}
		replace[target] = p
	}
	j, err := json.Marshal(map[string]any{"Replace": replace})
	if err != nil {
		return "", err
	}
	path := filepath.Join(dir, "overlay.json")
	return path, os.WriteFile(path, j, 0o644)
}
