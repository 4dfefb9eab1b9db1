package machine

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
)

// RunConfig is the configuration benchfmt lines describe the machine and
// the build with: the system, the CPU, the host, its cores and memory
// (Description), the kernel, Go, GOMAXPROCS and loopbench's commit
// (Commit).
func RunConfig() [][2]string {
	out := [][2]string{
		{"goos", runtime.GOOS},
		{"goarch", runtime.GOARCH},
		{"cpu", cpuModel()},
	}
	out = append(out, Description()...)
	return append(out, [][2]string{
		{"kernel", readTrim("/proc/sys/kernel/osrelease")},
		{"go", runtime.Version()},
		{"gomaxprocs", fmt.Sprint(runtime.GOMAXPROCS(0))},
		{"commit", Commit()},
	}...)
}

// WriteRunConfig writes RunConfig as benchfmt configuration lines.
func WriteRunConfig(w io.Writer) {
	for _, kv := range RunConfig() {
		fmt.Fprintf(w, "%s: %s\n", kv[0], kv[1])
	}
}

func readTrim(path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return "unknown"
	}
	return strings.TrimSpace(string(b))
}

func cpuModel() string {
	b, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		return "unknown"
	}
	for _, line := range strings.Split(string(b), "\n") {
		if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
	}
	return "unknown"
}

// ModulePath is loopbench's module.
const ModulePath = "github.com/loopbench/loopbench"

// Commit is the revision of loopbench's source this binary was built
// from (see commitOf), never that of the directory it runs in.
func Commit() string {
	bi, _ := debug.ReadBuildInfo()
	_, source, _, _ := runtime.Caller(0)
	return commitOf(bi, source)
}

// BuildSettings returns the settings the go command recorded in a build
// (vcs.revision, vcs.modified...); none for nil.
func BuildSettings(bi *debug.BuildInfo) map[string]string {
	settings := map[string]string{}
	if bi != nil {
		for _, s := range bi.Settings {
			settings[s.Key] = s.Value
		}
	}
	return settings
}

// commitOf is the revision a build recorded (vcs.revision, with
// "-modified" when vcs.modified says the tree had changes); for a build
// that recorded none (go test, -buildvcs=false), the checkout's that
// holds source, the path of a file compiled into the build, when that
// checkout is loopbench's own (sourceCommit); else "unknown".
func commitOf(bi *debug.BuildInfo, source string) string {
	s := BuildSettings(bi)
	if rev := s["vcs.revision"]; rev != "" {
		if s["vcs.modified"] == "true" {
			rev += "-modified"
		}
		return rev
	}
	if rev := sourceCommit(source); rev != "" {
		return rev
	}
	return "unknown"
}

// sourceCommit is the HEAD of the git checkout that holds source, with
// "-modified" when a tracked file has changed, provided that the
// checkout's top directory holds loopbench's go.mod: a copy of the source
// inside another repository has no commit of loopbench's. It is "" when
// source names no directory (a -trimpath build) or git cannot tell.
func sourceCommit(source string) string {
	if !filepath.IsAbs(source) {
		return ""
	}
	top, err := gitOutput(filepath.Dir(source), "rev-parse", "--show-toplevel")
	if err != nil {
		return ""
	}
	mod, err := os.ReadFile(filepath.Join(top, "go.mod"))
	if err != nil || moduleOf(mod) != ModulePath {
		return ""
	}
	rev, err := gitOutput(top, "rev-parse", "--verify", "HEAD")
	if err != nil {
		return ""
	}
	status, err := gitOutput(top, "status", "--porcelain", "--untracked-files=no")
	if err != nil {
		return ""
	}
	if status != "" {
		rev += "-modified"
	}
	return rev
}

// gitOutput runs git in dir and returns its output, trimmed.
func gitOutput(dir string, args ...string) (string, error) {
	out, err := exec.Command("git", append([]string{"-C", dir}, args...)...).Output()
	return strings.TrimSpace(string(out)), err
}

// moduleOf is the module path a go.mod declares.
func moduleOf(gomod []byte) string {
	for _, line := range strings.Split(string(gomod), "\n") {
		if f := strings.Fields(line); len(f) == 2 && f[0] == "module" {
			return strings.Trim(f[1], `"`)
		}
	}
	return ""
}
