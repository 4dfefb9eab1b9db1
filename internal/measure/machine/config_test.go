package machine

import (
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/loopbench/loopbench/internal/harness/gate/gatetest"
)

// vcsBuild is a build that recorded a revision and whether the tree had
// changes.
func vcsBuild(rev, modified string) *debug.BuildInfo {
	return &debug.BuildInfo{Settings: []debug.BuildSetting{{Key: "vcs", Value: "git"}, {Key: "vcs.revision", Value: rev}, {Key: "vcs.modified", Value: modified}}}
}

// TestCommitOf: the commit is the build's when it recorded one (marked
// when the tree had changes); else that of the checkout holding the
// source, only when it is loopbench's own (its top directory holds
// loopbench's go.mod), marked when a tracked file changed; else unknown.
func TestCommitOf(t *testing.T) {
	const rev = "0123456789abcdef0123456789abcdef01234567"
	own := gatetest.New(t)
	own.Write("go.mod", "module "+ModulePath+"\n\ngo 1.26\n")
	own.Write("internal/measure/machine/config.go", "package main\n")
	ownHead := own.Commit("loopbench")
	other := gatetest.New(t) // another module, with a copy of loopbench inside
	other.Write("vendored/go.mod", "module "+ModulePath+"\n")
	other.Write("vendored/internal/measure/machine/config.go", "package main\n")
	other.Commit("other")
	plain := &debug.BuildInfo{Settings: []debug.BuildSetting{{Key: "-buildvcs", Value: "false"}}}
	for _, c := range []struct {
		name   string
		bi     *debug.BuildInfo
		source string
		want   string
	}{
		{"recorded", vcsBuild(rev, "false"), filepath.Join(other.Dir, "vendored/internal/measure/machine/config.go"), rev},
		{"recorded modified", vcsBuild(rev, "true"), "", rev + "-modified"},
		{"no build info", nil, "", "unknown"},
		{"trimpath", plain, ModulePath + "/internal/measure/machine/config.go", "unknown"},
		{"own checkout", plain, filepath.Join(own.Dir, "internal/measure/machine/config.go"), ownHead},
		{"copy in another repository", plain, filepath.Join(other.Dir, "vendored/internal/measure/machine/config.go"), "unknown"},
		{"not a checkout", plain, filepath.Join(t.TempDir(), "main.go"), "unknown"},
	} {
		if got := commitOf(c.bi, c.source); got != c.want {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
	own.Write("results/new/raw.txt", "untracked\n")
	if got := commitOf(plain, filepath.Join(own.Dir, "internal/measure/machine/config.go")); got != ownHead {
		t.Errorf("with an untracked file: %q, want %q", got, ownHead)
	}
	own.Write("internal/measure/machine/config.go", "package main // changed\n")
	if got := commitOf(plain, filepath.Join(own.Dir, "internal/measure/machine/config.go")); got != ownHead+"-modified" {
		t.Errorf("with a changed file: %q, want %q", got, ownHead+"-modified")
	}
}

// TestCommitNotWorkingDirectory: run from another repository, loopbench
// records no commit of that repository's.
func TestCommitNotWorkingDirectory(t *testing.T) {
	r := gatetest.New(t)
	head := r.Commit("unrelated")
	t.Chdir(r.Dir)
	if c := Commit(); strings.HasPrefix(c, head) {
		t.Fatalf("commit %s is the working directory's", c)
	}
	for _, line := range RunConfig() {
		if line[0] == "commit" && strings.HasPrefix(line[1], head) {
			t.Fatalf("the configuration records the working directory's commit %s", line[1])
		}
	}
}
