package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/loopbench/loopbench/internal/harness/gate/gatetest"
	"github.com/loopbench/loopbench/internal/harness/index"
)

// markdownHeading is index.MarkdownHeading under the name the command's
// tests give it.
func markdownHeading(line string) (string, int) { return index.MarkdownHeading(line) }

// TestResultsIndex keeps results/README.md the index of the committed
// runs: it generates the index of the runs git tracks and fails when the
// file differs (-update rewrites it). A run not committed (as run
// -quick leaves in a fresh clone) is not judged; outside a git checkout
// the test is skipped.
func TestResultsIndex(t *testing.T) {
	root := filepath.Join("..", "..")
	tracked, err := trackedRuns(root)
	if err != nil {
		t.Skipf("judges the runs git tracks, and git cannot list them here: %v", err)
	}
	dir := filepath.Join(root, "results")
	out, err := buildIndex(dir, strings.Split(indexDocs, ","), tracked)
	if err != nil {
		t.Fatalf("index %s: %v", dir, err)
	}
	path := filepath.Join(dir, "README.md")
	if *update {
		if err := os.WriteFile(path, out, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if string(out) != string(want) {
		t.Errorf("%s is stale: regenerate it with go run ./cmd/loopbench index -out results/README.md results (or this test's -update), and read the diff", path)
	}
}

// trackedRuns returns whether a directory of root's results directory
// holds a file git tracks, by the directory's name.
func trackedRuns(root string) (func(name string) bool, error) {
	out, err := exec.Command("git", "-C", root, "ls-files", "-z", "--", "results").Output()
	if err != nil {
		if ee, ok := errors.AsType[*exec.ExitError](err); ok {
			err = fmt.Errorf("%v: %s", err, strings.TrimSpace(string(ee.Stderr)))
		}
		return nil, err
	}
	dirs := map[string]bool{}
	for _, f := range strings.Split(string(out), "\x00") {
		if rest, ok := strings.CutPrefix(f, "results/"); ok {
			if name, _, ok := strings.Cut(rest, "/"); ok {
				dirs[name] = true
			}
		}
	}
	return func(name string) bool { return dirs[name] }, nil
}

// TestResultsIndexTracked: the committed index's test judges the runs git
// tracks: a run directory left untracked beside them (as run writes one)
// changes nothing, while the index of everything would list it.
func TestResultsIndexTracked(t *testing.T) {
	r := gatetest.New(t)
	root := r.Dir
	committed, untracked := "2026-01-02-hosta-aaaaaaa", "2026-01-05-hostb-bbbbbbb"
	writeFiles(t, root, map[string]string{
		"README.md":                         "# Project\n",
		"results/" + committed + "/raw.txt": "commit: aaaaaaa\nBenchmarkX-2\t1\t5 ns/op\n",
	})
	r.Commit("a run")
	dir, docs := filepath.Join(root, "results"), []string{"README.md"}
	before, err := buildIndex(dir, docs, nil)
	if err != nil {
		t.Fatal(err)
	}
	writeFiles(t, root, map[string]string{"results/" + untracked + "/raw.txt": "commit: bbbbbbb\nBenchmarkX-2\t1\t6 ns/op\n"})
	tracked, err := trackedRuns(root)
	if err != nil {
		t.Fatal(err)
	}
	judged, err := buildIndex(dir, docs, tracked)
	if err != nil {
		t.Fatal(err)
	}
	if string(judged) != string(before) {
		t.Errorf("an untracked run changed the judged index:\n%s\nwant\n%s", judged, before)
	}
	all, err := buildIndex(dir, docs, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(all), untracked) || !strings.Contains(string(judged), committed) {
		t.Errorf("the index of everything does not list %s, or the judged one misses %s:\n%s", untracked, committed, all)
	}
}

// writeFiles writes files (path relative to root: content).
func writeFiles(t *testing.T, root string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestIndexGolden: the index of a synthetic repository: a run that
// records its machine, with peers and a sweep; an older one that records
// less (host and date from its name, GOMAXPROCS from the benchmark
// names); a gate's directory (both commits); load results of two
// generators; a directory with a raw.txt
// that holds no benchmark and one with neither: "not a run". A document
// citing a longer name that starts with a run's does not cite it.
func TestIndexGolden(t *testing.T) {
	root := t.TempDir()
	newer := "2026-01-03-hostb-bbbbbbb"
	writeFiles(t, root, map[string]string{
		"README.md": "# Project\n\nFigures: [run](results/" + newer + "/).\n",
		"docs/a.md": "# A\n\n## Some `timers`, compared\n\n![plot](../results/" + newer + "/x.svg)\n" +
			"See results/" + newer + "/raw.txt again.\n\n```\n# not a heading\n```\n\n### Old runs\n\n" +
			"    loopbench report results/2026-01-02-hosta-with-dash-aaaaaaa results/" + newer + "-peers\n",
		"results/2026-01-02-hosta-with-dash-aaaaaaa/raw.txt": "commit: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\n" +
			"command: COUNT=1 scripts/bench.sh\ncpu: CPU A\n" +
			"BenchmarkTimers/k=1-4\t10\t5 ns/op\nBenchmarkTimers/k=2-4\t10\t6 ns/op\nBenchmarkCallSoon/w=1-4\t10\t7 ns/op\n",
		"results/" + newer + "/raw.txt": "goos: linux\ncpu: CPU B\nmachine-host: hostb.example\nmachine-cores: 8\nkernel: 6.1\ngo: go1.26.8\n" +
			"commit: bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb\ncommand: loopbench peers -sweep 100:200:x2 -slo 1ms\npeer-libev: libev 4.33\n" +
			"BenchmarkLoad/label=libev/conns=1/rate=100-1\t100\t100 req/s\t1000 p50-ns\t2000 p90-ns\t3000 p99-ns\t4000 p99.9-ns\t5000 max-ns\n" +
			"BenchmarkLoad/label=libev/conns=1/rate=200-1\t200\t200 req/s\t1000 p50-ns\t2000 p90-ns\t3000 p99-ns\t4000 p99.9-ns\t5000 max-ns\n" +
			"knee: knee 200 req/s\nBenchmarkLoadKnee/label=libev/conns=1/slo=1ms\t1\t200 knee-req/s\nknee:\n",
		"results/2026-01-04-hostc-ccccccc/raw.txt": "commit: cccccccccccccccccccccccccccccccccccccccc\nnothing measured\n",
		"results/gate-2026-01-01-aaaaaaa-bbbbbbb/gate.txt": "cpu: CPU A\nside: base\ncommit: aaaaaaa\nBenchmarkX-2\t1\t5 ns/op\n" +
			"side: head\ncommit: bbbbbbb\nBenchmarkX-2\t1\t6 ns/op\n",
		"results/notes/todo.txt":                     "not a run\n",
		"results/loose-file.txt":                     "files in the results directory are left out\n",
		"results/2026-01-03-hostb-bbbbbbb-peers/.gi": "",
	})
	loads := filepath.Join(root, "results", "k8s-load-20260105T100000Z")
	if err := os.MkdirAll(loads, 0o755); err != nil {
		t.Fatal(err)
	}
	start := time.Date(2026, 1, 5, 10, 0, 0, 0, time.UTC)
	writeGenerator(t, loads, "gen-1", start, latencies(100, 20), 0, 0.5)
	writeGenerator(t, loads, "gen-2", start.Add(time.Second), latencies(120, 20), 0, 0.5)
	writeFiles(t, loads, map[string]string{"merged.txt": "the merged table\n"})

	var out, errb bytes.Buffer
	if err := run([]string{"index", filepath.Join(root, "results")}, &out, &errb); err != nil {
		t.Fatalf("index: %v\n%s", err, errb.String())
	}
	golden(t, "index.golden", out.String())

	outFile := filepath.Join(root, "index.md")
	if err := run([]string{"index", "-out", outFile, "-docs", "docs/*.md", filepath.Join(root, "results")}, &bytes.Buffer{}, &errb); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(outFile)
	if err != nil || bytes.Contains(b, []byte("README.md, ")) || !bytes.Contains(b, []byte("docs/a.md, Some `timers`, compared](../docs/a.md#some-timers-compared)")) {
		t.Errorf("-out with -docs docs/*.md wrote (%v):\n%s", err, b)
	}
}

// TestIndexBadInput: a missing directory, a file, a run directory itself,
// a directory without directories, a bad pattern and extra arguments are
// usage errors, each one line on stderr.
func TestIndexBadInput(t *testing.T) {
	root := t.TempDir()
	writeFiles(t, root, map[string]string{"run/raw.txt": "BenchmarkX-2\t1\t1 ns/op\n", "file.txt": "x\n", "empty/.keep": ""})
	cases := []struct {
		args []string
		want string
	}{
		{[]string{filepath.Join(root, "nosuch")}, "no such directory"},
		{[]string{filepath.Join(root, "file.txt")}, "is not a directory"},
		{[]string{filepath.Join(root, "run")}, "is a run directory"},
		{[]string{filepath.Join(root, "empty")}, "no run directories"},
		{[]string{"-docs", "[", root}, "-docs \"[\""},
		{[]string{root, root}, "want one results directory"},
	}
	for _, c := range cases {
		var out, errb bytes.Buffer
		err := run(append([]string{"index"}, c.args...), &out, &errb)
		msg := errb.String()
		if exitCode(err) != 2 || !strings.Contains(msg, c.want) || strings.Count(msg, "\n") != 1 || out.Len() != 0 {
			t.Errorf("index %q: exit %d, stdout %q, stderr %q; want 2 and one line with %q", c.args, exitCode(err), out.String(), msg, c.want)
		}
	}
}
