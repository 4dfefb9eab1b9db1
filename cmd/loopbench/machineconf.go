package main

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"strings"

	"github.com/loopbench/loopbench/internal/machine"
)

// machineConfig is the configuration benchfmt lines describe the machine
// with: the system, the CPU, the host, its cores and memory, the kernel,
// Go, GOMAXPROCS and the commit.
func machineConfig() [][2]string {
	out := [][2]string{
		{"goos", runtime.GOOS},
		{"goarch", runtime.GOARCH},
		{"cpu", cpuModel()},
	}
	out = append(out, machine.Description()...)
	return append(out, [][2]string{
		{"kernel", readTrim("/proc/sys/kernel/osrelease")},
		{"go", runtime.Version()},
		{"gomaxprocs", fmt.Sprint(runtime.GOMAXPROCS(0))},
		{"commit", commit()},
	}...)
}

func writeConfig(w io.Writer) {
	for _, kv := range machineConfig() {
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

// commit is the source revision: from the build info when go recorded
// it, else from git, else unknown.
func commit() string {
	if rev := buildSetting("vcs.revision"); rev != "" {
		return rev
	}
	out, err := exec.Command("git", "rev-parse", "HEAD").Output()
	if err != nil {
		return "unknown"
	}
	return strings.TrimSpace(string(out))
}
