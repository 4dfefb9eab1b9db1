package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/loopbench/loopbench/internal/harness/gate/gatetest"
	"github.com/loopbench/loopbench/internal/measure/valgrind"
)

// seriesSource is package series of a throwaway module: three benchmarks,
// each spinning its own number of multiply-adds an operation.
func seriesSource(a, b, c int) string {
	return fmt.Sprintf(`package series

import "testing"

var sink uint64

//go:noinline
func spin(n int) {
	x := sink
	for range n {
		x = x*6364136223846793005 + 1442695040888963407
	}
	sink = x
}

func BenchmarkA(b *testing.B) {
	for range b.N {
		spin(%d)
	}
}

func BenchmarkB(b *testing.B) {
	for range b.N {
		spin(%d)
	}
}

func BenchmarkC(b *testing.B) {
	for range b.N {
		spin(%d)
	}
}
`, a, b, c)
}

// TestHistoryOfSavedSeries is the nightly path on a throwaway module:
// commits c0…c7, where c3 makes A's hot path 3 % longer (1000 to 1030
// multiply-adds) and c6 B's 0.7 % (1000 to 1007), the others touching a
// comment only; each commit counted by gate -metric instructions
// -save-only into one directory, under names that do not sort by commit;
// history over that directory (ordered by the saves' commit times) names
// exactly A's change at c3, in instructions/op and est-cycles/op, and B's
// at c6, in instructions/op alone (0.7 % is under est-cycles/op's 1 %),
// and nothing else.
func TestHistoryOfSavedSeries(t *testing.T) {
	needValgrind(t)
	if !valgrind.Supported {
		t.Skipf("no client requests for %s: the overlay's windows are not counted here", runtime.GOARCH)
	}
	r := gatetest.New(t)
	t.Chdir(r.Dir)
	saves := filepath.Join(r.Dir, "saves")
	if err := os.Mkdir(saves, 0o755); err != nil {
		t.Fatal(err)
	}
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var commits []string
	for i := range 8 {
		a, b := 1000, 1000
		if i >= 3 {
			a = 1030
		}
		if i >= 6 {
			b = 1007
		}
		r.Write("series/series_test.go", seriesSource(a, b, 1000))
		r.Write("series/doc.go", fmt.Sprintf("// Package series is counted at commit c%d.\npackage series\n", i))
		t.Setenv("GIT_COMMITTER_DATE", start.Add(time.Duration(i)*time.Hour).Format(time.RFC3339))
		c := r.Commit(fmt.Sprintf("c%d", i))
		commits = append(commits, c)
		out, errs, code := runOut("gate", "-metric", "instructions", "-bench", ".", "-benchtime", "1000x", "-j", "2",
			"-head", c, "-save-only", filepath.Join(saves, c+".txt"), "-out", filepath.Join(r.Dir, "gate", c))
		if code != 0 {
			t.Fatalf("c%d -save-only: exit %d\nstderr %s\nstdout %s", i, code, errs, out)
		}
	}
	out, errs, code := runOut("history", "-format", "json", saves)
	var rep struct {
		Commits []struct{ Commit string }
		Changes []struct {
			Benchmark, Unit, Commit string
		}
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil || code != 0 {
		t.Fatalf("history: exit %d, %v\nstderr %s\nstdout %s", code, err, errs, out)
	}
	var order []string
	for _, c := range rep.Commits {
		order = append(order, c.Commit)
	}
	if !slices.Equal(order, commits) {
		t.Fatalf("history's commits %v, want c0…c7 %v", order, commits)
	}
	var got []string
	for _, c := range rep.Changes {
		got = append(got, fmt.Sprintf("c%d %s %s", slices.Index(commits, c.Commit), c.Benchmark, c.Unit))
	}
	slices.Sort(got)
	want := []string{"c3 A est-cycles/op", "c3 A instructions/op", "c6 B instructions/op"}
	if !slices.Equal(got, want) {
		t.Errorf("change points:\n  %s\nwant:\n  %s\n%s", strings.Join(got, "\n  "), strings.Join(want, "\n  "), out)
	}
}
