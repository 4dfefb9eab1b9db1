package gate

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/loopbench/loopbench/internal/harness/gate/gatetest"
)

type repo struct{ *gatetest.Repo }

func newRepo(t *testing.T) repo { return repo{gatetest.New(t)} }

func (r repo) config(base, head string) Config {
	return Config{Dir: r.Dir, Base: base, Head: head, Pkg: ".", Bench: ".", Count: 3, Benchtime: "50x", Seed: 1, Out: filepath.Join(r.Dir, "out")}
}

func TestGateRuns(t *testing.T) {
	r := newRepo(t)
	fast := r.CommitWork("100")
	slow := r.CommitWork("2000")
	res, err := Run(context.Background(), r.config(fast, slow))
	if err != nil {
		t.Fatal(err)
	}
	if res.Rounds != 3 || res.Base.Runs != 3 || res.Head.Runs != 3 || len(res.Orders) != 3 {
		t.Fatalf("rounds %d, runs %d+%d, orders %v", res.Rounds, res.Base.Runs, res.Head.Runs, res.Orders)
	}
	for _, s := range []*Side{res.Base, res.Head} {
		b, err := os.ReadFile(s.Path)
		if err != nil {
			t.Fatal(err)
		}
		text := string(b)
		if strings.Count(text, "BenchmarkWork") != 3 || !strings.Contains(text, "side: "+s.Name+"\n") || !strings.Contains(text, "commit: "+s.Commit+"\n") {
			t.Fatalf("%s:\n%s", s.Path, text)
		}
	}
	g, _ := os.ReadFile(res.GatePath)
	if strings.Count(string(g), "BenchmarkWork") != 6 || strings.Count(string(g), "side: base\n") != 3 {
		t.Fatalf("gate.txt:\n%s", g)
	}
	// The same seed draws the same orders.
	res2, err := Run(context.Background(), func() Config { c := r.config(fast, slow); c.Out += "2"; return c }())
	if err != nil || strings.Join(res2.Orders, " ") != strings.Join(res.Orders, " ") {
		t.Fatalf("orders %v then %v (%v)", res.Orders, res2.Orders, err)
	}
	// No worktree is left behind.
	if wt := r.Git("worktree", "list"); strings.Count(wt, "\n") != 0 {
		t.Fatalf("worktrees left:\n%s", wt)
	}
}

// TestGateWorkingTree: -head "" builds the working tree with its changes,
// marked dirty.
func TestGateWorkingTree(t *testing.T) {
	r := newRepo(t)
	r.CommitWork("100")
	r.Write("work_test.go", strings.Replace(r.Read("work_test.go"), "const steps = 100", "const steps = 300", 1))
	res, err := Run(context.Background(), r.config("HEAD", ""))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(res.Head.Commit, "-dirty") || res.Base.Commit == res.Head.Commit {
		t.Fatalf("commits %s %s", res.Base.Commit, res.Head.Commit)
	}
	head, _ := os.ReadFile(res.Head.Path)
	if !strings.Contains(string(head), "300.0 steps/op") {
		t.Fatalf("head did not build the working tree:\n%s", head)
	}
}

// TestGateBadInput: one clear error for each, and, for a build failure at
// one revision, the other side measured and kept.
func TestGateBadInput(t *testing.T) {
	r := newRepo(t)
	good := r.CommitWork("100")
	r.Write("broken.go", "package gated\n\nfunc Broken( {\n")
	broken := r.Commit("broken")

	cases := []struct {
		name string
		edit func(*Config)
		want string
	}{
		{"not a checkout", func(c *Config) { c.Dir = t.TempDir() }, "not a git checkout"},
		{"unknown revision", func(c *Config) { c.Base = "no-such-branch" }, `unknown revision "no-such-branch"`},
		{"no benchmarks", func(c *Config) { c.Pkg = "./nobench" }, "./nobench has no benchmarks"},
		{"no such package", func(c *Config) { c.Pkg = "./nosuch" }, "-pkg ./nosuch: no such package at head"},
		{"bench matches nothing", func(c *Config) { c.Bench = "Nothing" }, `-bench "Nothing" matches no benchmark`},
		{"sub-benchmark matches nothing", func(c *Config) { c.Bench = "Work/none" }, `-bench "Work/none" matched no benchmark`},
	}
	for _, c := range cases {
		cfg := r.config(good, good)
		cfg.Out = filepath.Join(t.TempDir(), "out")
		c.edit(&cfg)
		_, err := Run(context.Background(), cfg)
		var ge *Error
		if !errors.As(err, &ge) || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: %v; want one line with %q", c.name, err, c.want)
		}
	}

	cfg := r.config(good, broken)
	res, err := Run(context.Background(), cfg)
	if err == nil || !strings.Contains(err.Error(), "build of . at head") || !strings.Contains(err.Error(), "the base side's 3 rounds are in") {
		t.Fatalf("build failure: %v", err)
	}
	if b, _ := os.ReadFile(res.Base.Path); strings.Count(string(b), "BenchmarkWork") != 3 {
		t.Fatalf("base side not kept:\n%s", b)
	}
	if _, err := os.Stat(res.Head.Path); !os.IsNotExist(err) {
		t.Fatalf("a head file for a side that did not build: %v", err)
	}
}

func TestTopLevel(t *testing.T) {
	for in, want := range map[string]string{"CallSoon|Timers": "CallSoon|Timers", "Timers/op=cold": "Timers", "A[/]b/c": "A[/]b", "(A/B)/C": "(A/B)", `A\/B/C`: `A\/B`} {
		if got := topLevel(in); got != want {
			t.Errorf("topLevel(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestGateInterruptedPerSide: an interrupt during the second side of a
// round leaves one side a run ahead; the error says what each side ran,
// and each file holds exactly that many runs.
func TestGateInterruptedPerSide(t *testing.T) {
	r := newRepo(t)
	fast := r.CommitWork("100")
	slow := r.CommitWork("200")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	cfg := r.config(fast, slow)
	// The first side of round 2 runs whole; the interrupt comes as the
	// second starts, so it never runs: whichever side that is.
	first := 0
	cfg.Log = writerFunc(func(p []byte) {
		if strings.HasPrefix(string(p), "round 2 of 3: ") {
			if first++; first == 2 {
				cancel()
			}
		}
	})
	res, err := Run(ctx, cfg)
	if err == nil || !strings.Contains(err.Error(), "interrupted after 1 of 3 rounds") {
		t.Fatalf("err %v", err)
	}
	if res.Base.Runs+res.Head.Runs != 3 {
		t.Fatalf("runs %d+%d, want one side 2 and the other 1", res.Base.Runs, res.Head.Runs)
	}
	want := fmt.Sprintf("base ran %d times, head %d", res.Base.Runs, res.Head.Runs)
	if !strings.Contains(err.Error(), want) {
		t.Fatalf("err %q does not say %q", err, want)
	}
	for _, s := range []*Side{res.Base, res.Head} {
		b, _ := os.ReadFile(s.Path)
		if n := strings.Count(string(b), "BenchmarkWork"); n != s.Runs {
			t.Fatalf("%s holds %d runs, ran %d", s.Name, n, s.Runs)
		}
	}
}

type writerFunc func([]byte)

func (f writerFunc) Write(p []byte) (int, error) { f(p); return len(p), nil }

// TestGateInstructionsMatchesNothing: a sub-benchmark pattern that matches
// nothing (the top level does) is an error of the gate, not a run with
// nothing deterministic; a run that counts writes gate.txt with both
// sides.
func TestGateInstructionsMatchesNothing(t *testing.T) {
	if _, err := exec.LookPath("valgrind"); err != nil {
		t.Skip("valgrind not installed: the instructions metric is not tested here")
	}
	r := newRepo(t)
	good := r.CommitWork("100")
	cfg := r.config(good, good)
	cfg.Metric, cfg.Bench, cfg.Benchtime = "instructions", "Work/none", "5x"
	cfg.Callgrind.Repeat, cfg.Callgrind.Jobs, cfg.Callgrind.MaxSpread = 1, 1, 0.005
	_, err := Run(context.Background(), cfg)
	var ge *Error
	if !errors.As(err, &ge) || !strings.Contains(err.Error(), `-bench "Work/none" matches no benchmark in . at any level`) {
		t.Fatalf("err %v", err)
	}
	cfg.Bench, cfg.Out = "Work", filepath.Join(t.TempDir(), "out")
	res, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	g, _ := os.ReadFile(res.GatePath)
	if strings.Count(string(g), "BenchmarkWork") != 2 || !strings.Contains(string(g), "side: base\n") || !strings.Contains(string(g), "side: head\n") {
		t.Fatalf("gate.txt:\n%s", g)
	}
}

// TestCommitTime: each side records its commit's committer date, in UTC,
// the working tree its HEAD's: what orders saved counts in a history.
func TestCommitTime(t *testing.T) {
	r := newRepo(t)
	first := r.CommitWork("100")
	r.Git("commit", "-q", "--allow-empty", "-m", "later")
	res, err := resolveSides(context.Background(), r.config(first, ""))
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []*Side{res.Base, res.Head} {
		want, _ := time.Parse(time.RFC3339, r.Git("show", "-s", "--format=%cI", strings.TrimSuffix(s.Commit, "-dirty")))
		if s.CommitTime != want.UTC().Format(time.RFC3339) || !strings.HasSuffix(s.CommitTime, "Z") {
			t.Errorf("%s: commit-time %q, want %s", s.Name, s.CommitTime, want.UTC())
		}
	}
}
