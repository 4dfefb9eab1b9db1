//go:build linux

package main

import (
	"bytes"
	"errors"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loopbench/loopbench/internal/measure/loadresult"
)

// TestNetnsGenerators runs scripts/netns-load.sh: one server and three
// generators in network namespaces, started together and merged. The
// merged request count is the generators' sum, the merged p50 and p99 lie
// within the generators' own, the merged max is the largest max, and no
// namespace or link is left. It skips, with the script's reason, when not
// root or without ip.
func TestNetnsGenerators(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the namespaces take a few seconds")
	}
	out := t.TempDir()
	cmd := exec.Command("../../scripts/netns-load.sh", "-n", "3", "-duration", "1s", "-warmup", "200ms", "-conns", "4", "-out", out)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var exit *exec.ExitError
	if errors.As(err, &exit) && exit.ExitCode() == 3 {
		t.Skip(strings.TrimSpace(stderr.String()))
	}
	if err != nil {
		t.Fatalf("netns-load.sh: %v\n%s%s", err, stdout.String(), stderr.String())
	}
	var all []loadresult.Result
	for _, g := range []string{"gen-0", "gen-1", "gen-2"} {
		rs, err := loadresult.ReadFile(filepath.Join(out, g+".json"))
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, rs...)
	}
	m, err := loadresult.MergeGenerators(all)
	if err != nil {
		t.Fatal(err)
	}
	var sum int64
	var lo50, hi50, lo99, hi99, maxOf int64 = 1 << 62, 0, 1 << 62, 0, 0
	for _, r := range all {
		sum += r.Requests
		h := r.CorrectedHist
		p50, p99 := h.ValueAtQuantile(50), h.ValueAtQuantile(99)
		lo50, hi50, lo99, hi99 = min(lo50, p50), max(hi50, p50), min(lo99, p99), max(hi99, p99)
		maxOf = max(maxOf, h.Max())
	}
	h := m.CorrectedHist
	switch {
	case sum == 0 || m.Requests != sum:
		t.Errorf("merged %d requests, generators' sum %d", m.Requests, sum)
	case h.ValueAtQuantile(50) < lo50 || h.ValueAtQuantile(50) > hi50:
		t.Errorf("merged p50 %dµs outside the generators' [%d, %d]", h.ValueAtQuantile(50), lo50, hi50)
	case h.ValueAtQuantile(99) < lo99 || h.ValueAtQuantile(99) > hi99:
		t.Errorf("merged p99 %dµs outside the generators' [%d, %d]", h.ValueAtQuantile(99), lo99, hi99)
	case h.Max() != maxOf:
		t.Errorf("merged max %dµs, largest generator max %d", h.Max(), maxOf)
	case !strings.Contains(stdout.String(), "3 generators:"):
		t.Errorf("the script's merge printed:\n%s", stdout.String())
	}
	ns, _ := exec.Command("ip", "netns", "list").Output()
	links, _ := exec.Command("ip", "-o", "link").Output()
	for _, line := range strings.Split(string(ns)+string(links), "\n") {
		if strings.Contains(line, "lb") && (strings.Contains(line, "-g") || strings.Contains(line, "-s") || strings.Contains(line, "br")) {
			t.Errorf("left behind: %s", line)
		}
	}
}
