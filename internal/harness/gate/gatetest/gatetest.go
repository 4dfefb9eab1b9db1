// Package gatetest makes throwaway Go modules in git repositories, for the
// tests of `loopbench gate`: a benchmark whose cost and deterministic
// steps/op metric each commit sets.
package gatetest

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// Repo is a throwaway module in a git repository.
type Repo struct {
	t   testing.TB
	Dir string
}

// New makes a repository with a go.mod and a package ./nobench that has
// tests but no benchmarks. It skips the test when git is missing.
func New(t testing.TB) *Repo {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	r := &Repo{t, t.TempDir()}
	r.Git("init", "-q")
	r.Write("go.mod", "module example.com/gated\n\ngo 1.22\n")
	r.Write("nobench/nobench_test.go", "package nobench\n\nimport \"testing\"\n\nfunc TestNothing(t *testing.T) {}\n")
	return r
}

// Git runs git in the repository and returns its output.
func (r *Repo) Git(args ...string) string {
	r.t.Helper()
	cmd := exec.Command("git", append([]string{"-c", "user.name=gate test", "-c", "user.email=gate@example.com"}, args...)...)
	cmd.Dir = r.Dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		r.t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

// Write writes a file of the repository.
func (r *Repo) Write(name, content string) {
	r.t.Helper()
	p := filepath.Join(r.Dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		r.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		r.t.Fatal(err)
	}
}

// Read reads a file of the repository.
func (r *Repo) Read(name string) string {
	r.t.Helper()
	b, err := os.ReadFile(filepath.Join(r.Dir, name))
	if err != nil {
		r.t.Fatal(err)
	}
	return string(b)
}

// CommitWork commits BenchmarkWork doing steps steps per operation and
// reporting them as steps/op, declared exact by a benchfmt Unit line the
// test binary prints first, and returns the commit.
func (r *Repo) CommitWork(steps string) string {
	r.t.Helper()
	r.Write("work.go", "package gated\n\nfunc Work(n int) int {\n\ts := 0\n\tfor i := range n {\n\t\ts += i*i ^ s\n\t}\n\treturn s\n}\n")
	r.Write("work_test.go", `package gated

import (
	"fmt"
	"os"
	"testing"
)

var sink int

func TestMain(m *testing.M) {
	fmt.Println("Unit steps/op assume=exact better=lower")
	os.Exit(m.Run())
}

const steps = `+steps+`

func BenchmarkWork(b *testing.B) {
	for range b.N {
		sink = Work(steps)
	}
	b.ReportMetric(steps, "steps/op")
}
`)
	return r.Commit("work " + steps)
}

// Commit commits everything and returns the commit.
func (r *Repo) Commit(msg string) string {
	r.t.Helper()
	r.Git("add", "-A")
	r.Git("commit", "-q", "-m", msg)
	return r.Git("rev-parse", "HEAD")
}

// CommitClockWork commits BenchmarkClock, whose work per operation is
// drawn from the clock once a pass (100 to 2099 steps): a benchmark no
// two processes run alike, at any number of operations (a draw per
// operation would average out in a window widened tenfold). It returns
// the commit.
func (r *Repo) CommitClockWork() string {
	r.t.Helper()
	r.Write("clock_test.go", `package gated

import (
	"testing"
	"time"
)

func BenchmarkClock(b *testing.B) {
	steps := 100 + int(time.Now().UnixNano()%2000)
	for range b.N {
		sink = Work(steps)
	}
}
`)
	return r.Commit("clock")
}
