package callgrind

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/loopbench/loopbench/internal/measure/valgrind"
)

// cpu is the user and system time of the benchmark processes run to
// their end, in nanoseconds.
var cpu atomic.Int64

// ProcessCPU is the user and system CPU time of every benchmark process
// this package has run to its end (listings and counts): what counting
// costs, which a loaded machine stretches far less than wall time.
func ProcessCPU() time.Duration { return time.Duration(cpu.Load()) }

// Env is the environment a counted process runs in.
//
// cpu.rdtscp=off: the runtime reads the time stamp counter with RDTSCP
// where the CPU has it (cputicks, when a runtime lock sleeps), an
// instruction valgrind 3.19 does not decode (SIGILL, in some processes
// and not others).
//
// randautoseed=0: math/rand's global source starts from seed 1 in every
// process, and rand.Seed stays a no-op (as since Go 1.24), also for a
// benchmark that seeds it from the clock. A benchmark that draws its
// input from it then counts the same work in every process.
var Env = []string{"GOMAXPROCS=1", "GOGC=off", "GODEBUG=" + GODEBUG}

// GODEBUG is the GODEBUG setting of Env.
const GODEBUG = "asyncpreemptoff=1,cpu.rdtscp=off,randautoseed=0"

// WindowEnv is the environment of a process that counts windows: Env,
// valgrind.WindowsEnv, and randseednop=0, with which the overlay's
// window restarts math/rand's global source from seed 1 before every
// pass (rand.Seed takes effect again), so that what a benchmark draws
// depends neither on the benchmarks that ran before it in the process
// nor on a seed from the clock.
func WindowEnv() []string {
	return append(Env[:len(Env):len(Env)], "GODEBUG="+GODEBUG+",randseednop=0", valgrind.WindowsEnv+"=1")
}

// Flags are callgrind's flags. The simulated caches are fixed (32 KiB
// 8-way first-level caches, an 8 MiB 16-way last level, 64-byte lines),
// not the host's, so est-cycles compare between runners.
var Flags = []string{"--tool=callgrind", "--cache-sim=yes", "--collect-systime=nsec",
	"--I1=32768,8,64", "--D1=32768,8,64", "--LL=8388608,16,64"}

// ErrNoValgrind is returned, wrapped, when valgrind is not installed or
// cannot run here.
var ErrNoValgrind = errors.New("valgrind is not installed (Debian package valgrind) or does not run on this system")

// Valgrind is a valgrind found on PATH.
type Valgrind struct {
	Path    string
	Version string // "valgrind-3.19.0"
}

// Find looks valgrind up on PATH and asks its version.
func Find() (Valgrind, error) {
	p, err := exec.LookPath("valgrind")
	if err != nil {
		return Valgrind{}, ErrNoValgrind
	}
	out, err := exec.Command(p, "--version").Output()
	if err != nil {
		return Valgrind{}, fmt.Errorf("%w: %s --version: %v", ErrNoValgrind, p, err)
	}
	return Valgrind{p, strings.TrimSpace(string(out))}, nil
}

// Binary is a go test binary and the directory its benchmarks run in.
type Binary struct {
	Path, Dir string
	Args      []string // more flags for every run (-test.short)
	// Window says the binary's testing package counts each benchmark's
	// timed loop in a window (HasWindows): it was built with the gate's
	// overlay, which valgrind.WindowsEnv turns on.
	Window bool
}

// Listed is a benchmark found by List: its full name (without
// "Benchmark") and the iterations go test ran natively in the benchtime.
type Listed struct {
	Name  string
	Iters int
}

// Skipped is a benchmark its harness skipped when listed (b.Skip): its
// name and the reason it gave. A harness that knows what windows cannot
// count skips it where they are counted or sized (loopbench's bench: the
// Go runtime's timers, real waits), so a gate can name them instead of
// passing them.
type Skipped struct {
	Name, Reason string
}

// List runs the benchmarks matching pattern natively for benchtime (a
// duration or Nx, as -test.benchtime) and returns them in order with the
// iterations each ran, the size of the difference Measure counts, and
// those the harness skipped. For a binary with windows it runs with
// valgrind.SizingEnv set, so that the harness runs the work its windows
// will count.
func (b Binary) List(ctx context.Context, pattern, benchtime string) ([]Listed, []Skipped, error) {
	b.Args = append(b.Args[:len(b.Args):len(b.Args)], "-test.v") // skips are printed verbosely only
	out, err := b.run(ctx, nil, pattern, "-test.benchtime="+benchtime)
	if err != nil {
		return nil, nil, err
	}
	found, skipped := parseListing(string(out))
	return found, skipped, nil
}

// parseListing reads a verbose go test listing: the result lines, and
// each "--- SKIP: BenchmarkName" with the first line of the log printed
// just above it (the indented lines after the benchmark's name), without
// its "file.go:N: " prefix.
func parseListing(out string) ([]Listed, []Skipped) {
	var found []Listed
	var skipped []Skipped
	lines := strings.Split(out, "\n")
	for i, line := range lines {
		if name, ok := strings.CutPrefix(line, "--- SKIP: Benchmark"); ok {
			skipped = append(skipped, Skipped{strings.TrimSpace(name), skipReason(lines[:i])})
			continue
		}
		if f := strings.Fields(line); len(f) > 2 && strings.HasPrefix(f[0], "Benchmark") {
			n, _ := strconv.Atoi(f[1])
			found = append(found, Listed{strings.TrimPrefix(f[0], "Benchmark"), n})
		}
	}
	return found, skipped
}

// skipReason is the first line of the indented log that ends above.
func skipReason(above []string) string {
	first := len(above)
	for first > 0 && strings.HasPrefix(above[first-1], "    ") {
		first--
	}
	if first == len(above) {
		return ""
	}
	msg := strings.TrimSpace(above[first])
	if loc, rest, ok := strings.Cut(msg, ": "); ok && strings.Contains(loc, ".go:") {
		return rest
	}
	return msg
}

// Pattern is the -test.bench pattern that matches name alone: each level
// anchored and quoted.
func Pattern(name string) string {
	parts := strings.Split("Benchmark"+name, "/")
	for i, p := range parts {
		parts[i] = "^" + regexp.QuoteMeta(p) + "$"
	}
	return strings.Join(parts, "/")
}

// run runs the binary's benchmarks matching pattern with benchtime (a
// -test.benchtime flag), under prefix (valgrind and its flags) when not
// nil, in Env.
func (b Binary) run(ctx context.Context, prefix []string, pattern, benchtime string) ([]byte, error) {
	args := append(prefix, b.Path, "-test.run=^$", "-test.bench="+pattern, benchtime, "-test.benchmem")
	args = append(args, b.Args...)
	cmd := exec.CommandContext(ctx, args[0], args[1:]...)
	cmd.Dir = b.Dir
	cmd.Env = append(os.Environ(), Env...)
	switch {
	case slices.Contains(prefix, WindowFlag):
		cmd.Env = append(os.Environ(), WindowEnv()...)
	case prefix == nil && b.Window: // a listing that sizes windows
		cmd.Env = append(cmd.Env, valgrind.SizingEnv+"=1")
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if st := cmd.ProcessState; st != nil {
		cpu.Add(int64(st.UserTime() + st.SystemTime()))
	}
	if err != nil {
		msg := strings.TrimSpace(lastLines(stderr.String(), 3))
		return out, fmt.Errorf("%s %s: %v: %s", filepath.Base(b.Path), pattern, err, msg)
	}
	return out, nil
}

// Count runs name at iters iterations under callgrind and returns the
// process's counts, without the runtime's monitor thread (SysmonFunc),
// and the benchmark's output line.
func (v Valgrind) Count(ctx context.Context, b Binary, name string, iters int, tmp string) (Counts, string, error) {
	f, err := os.CreateTemp(tmp, "callgrind.out.")
	if err != nil {
		return Counts{}, "", err
	}
	f.Close()
	defer os.Remove(f.Name())
	prefix := append([]string{v.Path}, Flags...)
	prefix = append(prefix, "--callgrind-out-file="+f.Name())
	out, err := b.run(ctx, prefix, Pattern(name), fmt.Sprintf("-test.benchtime=%dx", iters))
	if err != nil {
		return Counts{}, "", err
	}
	line := resultLine(out, name)
	if line == "" {
		return Counts{}, "", fmt.Errorf("%s: no result at %d iterations", name, iters)
	}
	text, err := os.ReadFile(f.Name())
	if err != nil {
		return Counts{}, "", err
	}
	c, err := Parse(bytes.NewReader(text))
	if err != nil {
		return Counts{}, "", err
	}
	c, _, err = withoutRuntime(c, string(text), map[string]string{})
	return c, line, err
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, " | ")
}
