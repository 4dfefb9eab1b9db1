package gate

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/loopbench/loopbench/internal/harness/overlay"
)

// binary is a side's test binary of one package.
type binary struct {
	pkg        string // as go test -c takes it, relative to the module directory
	importPath string
	path       string // the test binary
	dir        string // the package's directory: where its benchmarks run
}

// loopbenchModule is loopbench's own module, whose benchmark matrix
// (./bench) is the package a gate there gates unless told otherwise.
const loopbenchModule = "github.com/loopbench/loopbench"

// packages are the packages side s gates at its checkout src: -pkg's,
// checked to exist; else ./bench in loopbench's module; else, as go test
// -bench over ./... would, every package whose test files declare a
// benchmark that -bench's first level matches.
func packages(ctx context.Context, cfg Config, src, side string) ([]string, error) {
	if cfg.Pkg != "" {
		if _, err := goCmd(ctx, src, "list", "-f", "{{.ImportPath}}", cfg.Pkg); err != nil {
			return nil, errorf("-pkg %s: no such package at %s (%v)", cfg.Pkg, side, err)
		}
		return []string{cfg.Pkg}, nil
	}
	if mod, err := goCmd(ctx, src, "list", "-m"); err == nil && mod == loopbenchModule {
		return []string{"./bench"}, nil
	}
	out, err := goCmd(ctx, src, "list", "-f", "{{.Dir}}\t{{join .TestGoFiles \" \"}} {{join .XTestGoFiles \" \"}}", "./...")
	if err != nil {
		return nil, errorf("go list ./... at %s: %v", side, err)
	}
	first, err := regexp.Compile(topLevel(cfg.Bench))
	if err != nil {
		return nil, errorf("-bench %q: %v", cfg.Bench, err)
	}
	var pkgs []string
	for _, line := range strings.Split(out, "\n") {
		dir, files, ok := strings.Cut(line, "\t")
		if !ok || !declaresBenchmark(dir, strings.Fields(files), first) {
			continue
		}
		rel, err := filepath.Rel(src, dir)
		if err != nil {
			return nil, errorf("%v", err)
		}
		if rel != "." {
			rel = "./" + filepath.ToSlash(rel)
		}
		pkgs = append(pkgs, rel)
	}
	if len(pkgs) == 0 {
		return nil, errorf("-bench %q matches no benchmark of the module's packages (at %s)", cfg.Bench, side)
	}
	return pkgs, nil
}

// benchmarkFunc is a benchmark's declaration in a test file.
var benchmarkFunc = regexp.MustCompile(`^func (Benchmark\w*)\(\w+ \*testing\.B\)`)

// declaresBenchmark says one of the test files in dir declares a
// benchmark whose name first matches.
func declaresBenchmark(dir string, files []string, first *regexp.Regexp) bool {
	for _, name := range files {
		f, err := os.Open(filepath.Join(dir, name))
		if err != nil {
			continue
		}
		sc := bufio.NewScanner(f)
		found := false
		for sc.Scan() && !found {
			m := benchmarkFunc.FindStringSubmatch(sc.Text())
			found = m != nil && first.MatchString(m[1])
		}
		f.Close()
		if found {
			return true
		}
	}
	return false
}

// build builds the side's test binaries, one per package it gates: in
// the working tree for head "", else in a temporary worktree at its
// commit. For the instructions metric they are built with the overlay
// of the testing package that counts windows (package overlay); it
// returns a note when the toolchain does not take it.
func (s *Side) build(ctx context.Context, cfg Config, top, rel, tmp string) (note string) {
	src := filepath.Join(top, rel)
	if s.Rev != "" || s.Name == "base" {
		wt := filepath.Join(tmp, s.Name)
		if _, err := git(ctx, top, "worktree", "add", "--detach", wt, s.Commit); err != nil {
			s.err = errorf("%s: git worktree add %s: %v", s.Name, s.Rev, err)
			return ""
		}
		src = filepath.Join(wt, rel)
	}
	pkgs, err := packages(ctx, cfg, src, s.Name)
	if err != nil {
		s.err = err
		return ""
	}
	var flags []string
	if cfg.Metric == "instructions" {
		flags, note = overlayFlags(ctx, cfg, src, filepath.Join(tmp, s.Name+"-overlay"))
	}
	for i, pkg := range pkgs {
		if s.refuseNote(cfg, note) {
			return ""
		}
		b := &binary{pkg: pkg, path: filepath.Join(tmp, fmt.Sprintf("%s-%d.test", s.Name, i))}
		if more := b.build(ctx, cfg, src, s, flags); more != "" {
			note, flags = more, nil
		}
		if s.err != nil {
			return note
		}
		s.bins = append(s.bins, b)
	}
	if s.refuseNote(cfg, note) {
		return ""
	}
	s.Binary = s.bins[0].path
	return note
}

// refuseNote makes a fallback to the difference of two processes, which
// note names, the side's error when -method windows forbids it.
func (s *Side) refuseNote(cfg Config, note string) bool {
	if note == "" || cfg.Method != MethodWindow {
		return false
	}
	s.err = errorf("-method windows: %s", strings.TrimSuffix(note, ": counted by the difference of two processes"))
	return true
}

// build builds b.pkg's test binary with flags (the overlay's), and
// without them when the patched testing package does not compile: the
// note then says so.
func (b *binary) build(ctx context.Context, cfg Config, src string, s *Side, flags []string) (note string) {
	args := append([]string{"test", "-c", "-pgo=off", "-o", b.path}, flags...)
	cmd := exec.CommandContext(ctx, "go", append(args, b.pkg)...)
	cmd.Dir = src
	out, err := cmd.CombinedOutput()
	if err != nil && len(flags) > 0 && ctx.Err() == nil {
		if b.build(ctx, cfg, src, s, nil); s.err != nil {
			return ""
		}
		return fmt.Sprintf("the testing package patched to count windows does not build (%s): counted by the difference of two processes", firstLines(out, err))
	}
	if err != nil {
		s.err = errorf("build of %s at %s (%s) failed: %s", b.pkg, s.Name, s.Rev, firstLines(out, err))
		fmt.Fprintf(cfg.Log, "%s", out)
		return ""
	}
	if _, err := os.Stat(b.path); err != nil {
		s.err = errorf("%s at %s (%s) has no test files", b.pkg, s.Name, s.Rev)
		return ""
	}
	line, err := goCmd(ctx, src, "list", "-f", "{{.ImportPath}}\t{{.Dir}}", b.pkg)
	if err != nil {
		s.err = errorf("go list %s at %s (%s): %v", b.pkg, s.Name, s.Rev, err)
		return ""
	}
	b.importPath, b.dir, _ = strings.Cut(line, "\t")
	return ""
}

// overlayFlags writes the overlay of the testing package of the
// toolchain that builds at src to dir and returns the -overlay flag, or
// no flag and a note naming the Go version the patch does not fit.
func overlayFlags(ctx context.Context, cfg Config, src, dir string) ([]string, string) {
	if cfg.Method == MethodDifference {
		return nil, "-method difference: counted by the difference of two processes"
	}
	toolchain := cfg.toolchain
	if toolchain == nil {
		toolchain = overlay.Current
	}
	t, err := toolchain(src)
	if err == nil {
		err = os.MkdirAll(dir, 0o755)
	}
	var path string
	if err == nil {
		path, err = overlay.Write(dir, t)
	}
	if err != nil {
		if unfit := (*overlay.UnfitError)(nil); errors.As(err, &unfit) {
			return nil, unfit.Error() + ": counted by the difference of two processes"
		}
		return nil, fmt.Sprintf("no overlay of the testing package (%v): counted by the difference of two processes", err)
	}
	return []string{"-overlay", path}, ""
}

// goCmd runs the go command in dir and returns its output, trimmed; its
// error is the first lines the command printed.
func goCmd(ctx context.Context, dir string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, "go", args...)
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return "", errors.New(firstLines(stderr.Bytes(), err))
	}
	return strings.TrimSpace(string(out)), nil
}
