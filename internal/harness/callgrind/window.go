package callgrind

import (
	"context"
	"debug/elf"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/loopbench/loopbench/internal/measure/valgrind"
)

// WindowFlag starts callgrind with instrumentation off: a binary built
// with the gate's overlay of the testing package (package overlay) turns
// it on around each benchmark's timed loop alone.
const WindowFlag = "--instr-atstart=no"

// GroupSize is the most benchmarks counted in one process by windows: one
// valgrind start for many, each window dumped on its own. Every
// benchmark's setup and b.N = 1 pass stay in the process's memory
// (GOGC=off), which bounds it.
var GroupSize = 24

// windowSymbol is in a test binary built with the gate's overlay of the
// testing package (package overlay).
const windowSymbol = "testing.lbClientRequest"

// HasWindows says the binary's testing package counts windows: it was
// built with the gate's overlay. A binary without them is counted by the
// difference of two processes.
func HasWindows(path string) bool { return hasSymbol(path, windowSymbol) }

// hasSymbol says the ELF binary at path defines the Go function sym.
func hasSymbol(path, sym string) bool {
	f, err := elf.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	syms, err := f.Symbols()
	if err != nil {
		return false
	}
	for _, s := range syms {
		if s.Name == sym || s.Name == sym+".abi0" {
			return true
		}
	}
	return false
}

// WindowIters is the iteration count of a benchmark that ran n iterations
// natively in the listing's benchtime, for a window count: n rounded down
// to 1, 2 or 5 times a power of ten, so that benchmarks of about one
// speed share a count and a process. Iters[0] is 0: per op is the
// window's count over Iters[1]. One iteration is a whole window only for
// an operation that filled the benchtime natively (the listing runs the
// work the window counts: valgrind.SizingEnv), millions of instructions;
// what time moves in it is then a small share, as in a window of many
// short operations.
func WindowIters(n int) [2]int {
	n = max(n, 1)
	p := 1
	for p*10 <= n {
		p *= 10
	}
	r := p
	for _, m := range []int{2, 5} {
		if m*p <= n {
			r = m * p
		}
	}
	return [2]int{0, r}
}

// countWindows runs the named benchmarks of b at iters iterations in one
// process under callgrind with instrumentation off outside their windows,
// and returns each one's window counts and result line.
func (v Valgrind) countWindows(ctx context.Context, b Binary, names []string, iters int, tmp string) (map[string]Counts, map[string]string, error) {
	dir, err := os.MkdirTemp(tmp, "callgrind.")
	if err != nil {
		return nil, nil, err
	}
	defer os.RemoveAll(dir)
	outFile := filepath.Join(dir, "out")
	prefix := append([]string{v.Path}, Flags...)
	prefix = append(prefix, WindowFlag, "--callgrind-out-file="+outFile)
	patterns := make([]string, len(names))
	for i, n := range names {
		patterns[i] = Pattern(n)
	}
	out, err := b.run(ctx, prefix, strings.Join(patterns, "|"), "-test.benchtime="+strconv.Itoa(iters)+"x")
	if err != nil {
		return nil, nil, err
	}
	dumps, err := ReadDumps(outFile)
	if err != nil {
		return nil, nil, err
	}
	return windowCounts(dumps, out, names, iters)
}

// ErrBadWindow is windowCounts' error for a benchmark whose window is
// missing, was dumped more than once, or counted no instructions: its
// count would be no count of its timed loop (two windowing harnesses in
// one binary dump twice, the second around nothing).
var ErrBadWindow = errors.New("window not counted once")

// ErrEmptyWindow is, beside ErrBadWindow, the error for a window that
// counted no instructions. Seen once in a loaded test run and never in
// forty runs of the same process, it is counted again (emptyRetries)
// before it fails; a window dumped twice is not, as it would repeat.
var ErrEmptyWindow = errors.New("the window counted no instructions")

// emptyRetries is how many more processes count windows after one came
// back empty.
const emptyRetries = 2

// retryEmpty calls count until it returns no ErrEmptyWindow, at most
// emptyRetries more times.
func retryEmpty[T any](count func() (T, error)) (T, error) {
	r, err := count()
	for i := 0; i < emptyRetries && errors.Is(err, ErrEmptyWindow); i++ {
		r, err = count()
	}
	return r, err
}

// windowCounts picks each named benchmark's window among a process's
// dumps, and its result line from the process's output: exactly one
// dump, with instructions, per benchmark.
func windowCounts(dumps []Dump, out []byte, names []string, iters int) (map[string]Counts, map[string]string, error) {
	counts, lines := map[string]Counts{}, map[string]string{}
	for _, name := range names {
		n := 0
		for _, d := range dumps {
			if d.Reason == valgrind.WindowReason(name, iters) {
				counts[name] = d.Counts
				n++
			}
		}
		lines[name] = resultLine(out, name)
		switch {
		case n == 0 || lines[name] == "":
			return nil, nil, fmt.Errorf("%s: %w: none at %d iterations", name, ErrBadWindow, iters)
		case n > 1:
			return nil, nil, fmt.Errorf("%s: %w: dumped %d times at %d iterations (a second windowing harness in the binary?)", name, ErrBadWindow, n, iters)
		case counts[name].Ir == 0:
			return nil, nil, fmt.Errorf("%s: %w: %w at %d iterations", name, ErrBadWindow, ErrEmptyWindow, iters)
		}
	}
	return counts, lines, nil
}

// resultLine is name's result line in a benchmark binary's output.
func resultLine(out []byte, name string) string {
	line := ""
	for _, l := range strings.Split(string(out), "\n") {
		if f := strings.Fields(l); len(f) > 1 && f[0] == "Benchmark"+name {
			line = l
		}
	}
	return line
}
