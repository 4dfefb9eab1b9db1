package machine

import (
	"os"
	"runtime"
	"runtime/debug"
	"strings"
	"time"
)

// Version is the version line of a build: the module version, the VCS
// revision and "(modified)" when the build recorded them, and the Go
// release.
func Version(bi *debug.BuildInfo) string {
	parts := []string{"loopbench", "(devel)"}
	if bi == nil {
		return strings.Join(append(parts, runtime.Version()), " ")
	}
	if bi.Main.Version != "" {
		parts[1] = bi.Main.Version
	}
	settings := BuildSettings(bi)
	if rev := settings["vcs.revision"]; rev != "" {
		parts = append(parts, rev)
		if settings["vcs.modified"] == "true" {
			parts = append(parts, "(modified)")
		}
	}
	goVersion := bi.GoVersion
	if goVersion == "" {
		goVersion = runtime.Version()
	}
	return strings.Join(append(parts, goVersion), " ")
}

// RunName is the name of a results directory for a run started at now:
// <date>-<host>-<short commit>.
func RunName(now time.Time) string {
	host, _ := os.Hostname()
	c := Commit()
	if len(c) > 7 && c != "unknown" {
		c = c[:7]
	}
	return now.UTC().Format("2006-01-02") + "-" + host + "-" + c
}
