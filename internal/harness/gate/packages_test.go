package gate

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/loopbench/loopbench/internal/harness/overlay"
)

// writeBench writes package dir of r's module with the benchmarks names,
// each running Work.
func writeBench(r repo, dir string, names ...string) {
	src := "package " + filepath.Base(dir) + "\n\nimport \"testing\"\n\nvar sink int\n\nfunc work(n int) int {\n\ts := 0\n\tfor i := range n {\n\t\ts += i*i ^ s\n\t}\n\treturn s\n}\n"
	for _, n := range names {
		src += "\nfunc Benchmark" + n + "(b *testing.B) {\n\tfor range b.N {\n\t\tsink = work(100)\n\t}\n}\n"
	}
	r.Write(dir+"/"+filepath.Base(dir)+"_test.go", src)
}

// TestPackagesDefault: without -pkg, the packages whose test files
// declare a benchmark -bench's first level matches, in go list's order;
// in loopbench's module, ./bench; a -pkg that does not exist is one line
// naming it.
func TestPackagesDefault(t *testing.T) {
	r := newRepo(t)
	writeBench(r, "a", "Foo", "Shared")
	writeBench(r, "b", "Bar", "Shared")
	writeBench(r, "b/deep", "Bar")
	ctx := context.Background()
	for bench, want := range map[string][]string{"Foo": {"./a"}, "Shared": {"./a", "./b"}, "Bar/x": {"./b", "./b/deep"}, ".": {"./a", "./b", "./b/deep"}} {
		got, err := packages(ctx, Config{Bench: bench}, r.Dir, "head")
		if err != nil || !slices.Equal(got, want) {
			t.Errorf("-bench %s: %v %v, want %v", bench, got, err, want)
		}
	}
	if _, err := packages(ctx, Config{Bench: "Nothing"}, r.Dir, "head"); err == nil || !strings.Contains(err.Error(), `-bench "Nothing" matches no benchmark of the module's packages (at head)`) {
		t.Errorf("matching nothing: %v", err)
	}
	got, err := packages(ctx, Config{Bench: ".", Pkg: "./b"}, r.Dir, "head")
	if err != nil || !slices.Equal(got, []string{"./b"}) {
		t.Errorf("-pkg ./b: %v %v", got, err)
	}
	_, err = packages(ctx, Config{Bench: ".", Pkg: "./nosuch"}, r.Dir, "base")
	var ge *Error
	if !errors.As(err, &ge) || !strings.HasPrefix(err.Error(), "-pkg ./nosuch: no such package at base") || strings.Contains(err.Error(), "\n") {
		t.Errorf("missing -pkg: %v", err)
	}
	own := newRepo(t)
	own.Write("go.mod", "module "+loopbenchModule+"\n\ngo 1.22\n")
	writeBench(own, "impl/x", "Foo")
	if got, err := packages(ctx, Config{Bench: "."}, own.Dir, "head"); err != nil || !slices.Equal(got, []string{"./bench"}) {
		t.Errorf("loopbench's module: %v %v, want ./bench", got, err)
	}
}

// TestGateDefaultPackages: a gate without -pkg runs the benchmarks of
// every matching package, one binary each, under its package's pkg line,
// so that two packages' benchmarks of one name stay apart.
func TestGateDefaultPackages(t *testing.T) {
	r := newRepo(t)
	writeBench(r, "a", "Shared")
	writeBench(r, "b", "Shared", "Other")
	c := r.Commit("two packages")
	cfg := r.config(c, c)
	cfg.Pkg, cfg.Bench, cfg.Count, cfg.Benchtime = "", "Shared", 2, "5x"
	res, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Head.bins) != 2 {
		t.Fatalf("head built %d binaries, want 2", len(res.Head.bins))
	}
	b, _ := os.ReadFile(res.Head.Path)
	text := string(b)
	for _, pkg := range []string{"example.com/gated/a", "example.com/gated/b"} {
		if !strings.Contains(text, "pkg: "+pkg+"\n") {
			t.Errorf("no results under pkg %s:\n%s", pkg, text)
		}
	}
	if strings.Count(text, "BenchmarkShared") != 4 || strings.Contains(text, "BenchmarkOther") {
		t.Errorf("head.txt:\n%s", text)
	}
}

// TestShallowClone: a base revision a shallow clone lacks is one line
// saying that the history is missing and what CI needs.
func TestShallowClone(t *testing.T) {
	r := newRepo(t)
	r.CommitWork("100")
	r.CommitWork("200")
	clone := filepath.Join(t.TempDir(), "clone")
	if out, err := exec.Command("git", "clone", "-q", "--depth", "1", "file://"+r.Dir, clone).CombinedOutput(); err != nil {
		t.Fatalf("git clone: %v\n%s", err, out)
	}
	cfg := r.config("", "")
	cfg.Dir = clone
	_, err := Run(context.Background(), cfg)
	if err == nil || !strings.Contains(err.Error(), `unknown revision "HEAD~1"`) || !strings.Contains(err.Error(), "shallow clone") ||
		!strings.Contains(err.Error(), "fetch-depth: 0") || strings.Contains(err.Error(), "\n") {
		t.Fatalf("err %v", err)
	}
}

// TestGateInstructionsFallback: a toolchain whose testing package the
// patch does not fit is counted by the difference of two processes, and
// one line says so, naming its Go version.
func TestGateInstructionsFallback(t *testing.T) {
	if _, err := exec.LookPath("valgrind"); err != nil {
		t.Skip("valgrind not installed: the instructions metric is not tested here")
	}
	r := newRepo(t)
	good := r.CommitWork("100")
	root := t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, "src", "testing"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "src", "testing", "benchmark.go"), []byte("package testing\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var log strings.Builder
	cfg := r.config(good, good)
	cfg.Metric, cfg.Bench, cfg.Benchtime, cfg.Log = "instructions", "Work", "20x", &log
	cfg.Callgrind.Repeat, cfg.Callgrind.Jobs, cfg.Callgrind.MaxSpread = 1, 1, 0.005
	cfg.toolchain = func(string) (overlay.Toolchain, error) {
		return overlay.Toolchain{GOROOT: root, Version: "go1.99-fake", GOARCH: "amd64"}, nil
	}
	res, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	var notes []string
	for _, l := range strings.Split(log.String(), "\n") {
		if strings.HasPrefix(l, "gate: ") {
			notes = append(notes, l)
		}
	}
	if res.Method != MethodDifference || len(notes) != 1 || !strings.Contains(notes[0], "go1.99-fake does not take the window patch") ||
		!strings.HasSuffix(notes[0], "counted by the difference of two processes") {
		t.Fatalf("method %s, lines %q", res.Method, notes)
	}
}

// TestGateMethodForced: Method "difference" counts by the difference of
// two processes where windows would do; Method "windows" on a toolchain
// the patch does not fit is an error naming it, not a fallback.
func TestGateMethodForced(t *testing.T) {
	if _, err := exec.LookPath("valgrind"); err != nil {
		t.Skip("valgrind not installed: the instructions metric is not tested here")
	}
	r := newRepo(t)
	good := r.CommitWork("100")
	cfg := r.config(good, good)
	cfg.Metric, cfg.Bench, cfg.Benchtime = "instructions", "Work", "20x"
	cfg.Callgrind.Repeat, cfg.Callgrind.Jobs, cfg.Callgrind.MaxSpread = 1, 1, 0.005

	diff := cfg
	var log strings.Builder
	diff.Method, diff.Log = MethodDifference, &log
	res, err := Run(context.Background(), diff)
	if err != nil {
		t.Fatal(err)
	}
	if res.Method != MethodDifference || !strings.Contains(log.String(), "gate: -method difference: counted by the difference of two processes") {
		t.Fatalf("method %s, log %q", res.Method, log.String())
	}

	win := cfg
	win.Method = MethodWindow
	win.toolchain = func(string) (overlay.Toolchain, error) {
		return overlay.Toolchain{GOROOT: t.TempDir(), Version: "go1.99-fake", GOARCH: "amd64"}, nil
	}
	_, err = Run(context.Background(), win)
	if err == nil || !strings.Contains(err.Error(), "-method windows") || !strings.Contains(err.Error(), "go1.99-fake") {
		t.Fatalf("err %v", err)
	}
}
