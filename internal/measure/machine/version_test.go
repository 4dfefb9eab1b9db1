package machine

import (
	"os"
	"runtime/debug"
	"strings"
	"testing"
	"time"
)

// TestVersion: the module version, the VCS revision and whether the tree
// was modified, as the go command records them in the binary.
func TestVersion(t *testing.T) {
	bi := &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Path: "github.com/loopbench/loopbench", Version: "v0.0.0-20261126120000-0123456789ab+dirty"},
		Settings: []debug.BuildSetting{{Key: "vcs", Value: "git"}, {Key: "vcs.revision", Value: "0123456789abcdef0123456789abcdef01234567"}, {Key: "vcs.modified", Value: "true"}}}
	want := "loopbench v0.0.0-20261126120000-0123456789ab+dirty 0123456789abcdef0123456789abcdef01234567 (modified) go1.26.8"
	if got := Version(bi); got != want {
		t.Fatalf("Version = %q, want %q", got, want)
	}
	bi.Settings, bi.Main.Version = nil, "(devel)"
	if got := Version(bi); got != "loopbench (devel) go1.26.8" {
		t.Fatalf("without VCS information: %q", got)
	}
}

// TestRunName: the UTC date of the start, the host and the commit, short.
func TestRunName(t *testing.T) {
	host, _ := os.Hostname()
	start := time.Date(2026, 11, 29, 23, 30, 0, 0, time.FixedZone("east", 3*3600))
	got := RunName(start)
	prefix := "2026-11-29-" + host + "-"
	c := strings.TrimPrefix(got, prefix)
	if !strings.HasPrefix(got, prefix) || c == "" || len(c) > 7 && c != "unknown" {
		t.Fatalf("RunName = %q, want %s<commit of at most 7>", got, prefix)
	}
}
