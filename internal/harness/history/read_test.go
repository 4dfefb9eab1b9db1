package history

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// save writes a save as gate -save-only does: commit, optional
// commit-time, and two counts of each benchmark at instrs instructions/op.
func save(t *testing.T, dir, name, commit, when string, instrs map[string]float64) string {
	t.Helper()
	var b strings.Builder
	b.WriteString("Unit instructions/op assume=exact\ngoos: linux\ncommit: " + commit + "\n")
	if when != "" {
		b.WriteString("commit-time: " + when + "\n")
	}
	b.WriteString("side: head\n")
	for _, bench := range []string{"A", "B"} {
		if v, ok := instrs[bench]; ok {
			fmt.Fprintf(&b, "Benchmark%s\t100\t%g instructions/op\nBenchmark%s\t100\t%g instructions/op\n", bench, v, bench, v)
		}
	}
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestReadDirOrder: a directory's saves are ordered by their commit-time
// lines, not their names, and a benchmark missing from a save is missing
// from that commit only.
func TestReadDirOrder(t *testing.T) {
	dir := t.TempDir()
	save(t, dir, "a.txt", "c3", "2026-11-23T08:00:00Z", map[string]float64{"A": 103, "B": 50})
	save(t, dir, "b.txt", "c1", "2026-11-21T08:00:00Z", map[string]float64{"A": 100})
	save(t, dir, "c.txt", "c2", "2026-11-22T08:00:00Z", map[string]float64{"A": 100, "B": 50})
	h, err := ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var order []string
	for _, c := range h.Commits {
		order = append(order, c.Commit+"@"+filepath.Base(c.Files[0]))
	}
	if strings.Join(order, " ") != "c1@b.txt c2@c.txt c3@a.txt" {
		t.Fatalf("order %v", order)
	}
	if len(h.Series) != 2 || fmt.Sprint(h.Series[0].At) != "[0 1 2]" || fmt.Sprint(h.Series[1].At) != "[1 2]" || len(h.Series[0].Values[2]) != 2 {
		t.Fatalf("series %+v %+v", h.Series[0], h.Series[1])
	}
	r := Analyze(h, defaults)
	if len(r.Changes) != 1 || r.Changes[0].At != 2 || len(r.Missing) != 1 || r.Missing[0].Name != "B" || fmt.Sprint(r.Missing[0].Commits) != "[0]" {
		t.Fatalf("changes %+v missing %+v", r.Changes, r.Missing)
	}
}

// TestReadFilesPools: files are taken in the order given, and
// consecutive saves of one commit are one point with every count.
func TestReadFilesPools(t *testing.T) {
	dir := t.TempDir()
	p1 := save(t, dir, "1.txt", "c2", "", map[string]float64{"A": 100})
	p2 := save(t, dir, "2.txt", "c1", "", map[string]float64{"A": 100})
	p3 := save(t, dir, "3.txt", "c1", "", map[string]float64{"A": 101})
	h, err := ReadFiles([]string{p1, p2, p3})
	if err != nil {
		t.Fatal(err)
	}
	if len(h.Commits) != 2 || h.Commits[0].Commit != "c2" || len(h.Commits[1].Files) != 2 || fmt.Sprint(h.Series[0].Values[1]) != "[100 100 101 101]" {
		t.Fatalf("commits %+v series %+v", h.Commits, h.Series[0])
	}
}

// TestReadErrors: each save that cannot be read or placed is refused
// with an error naming it.
func TestReadErrors(t *testing.T) {
	dir := t.TempDir()
	good := save(t, dir, "good.txt", "c1", "2026-11-21T08:00:00Z", map[string]float64{"A": 1})
	noTime := save(t, t.TempDir(), "old.txt", "c0", "", map[string]float64{"A": 1})
	text := filepath.Join(dir, "notes.md")
	os.WriteFile(text, []byte("# notes\n"), 0o644)
	two := filepath.Join(t.TempDir(), "two.txt")
	os.WriteFile(two, []byte("commit: a\nBenchmarkA 1 1 instructions/op\ncommit: b\nBenchmarkA 1 1 instructions/op\n"), 0o644)
	noCommit := filepath.Join(t.TempDir(), "run.txt")
	os.WriteFile(noCommit, []byte("BenchmarkA 1 1 instructions/op\n"), 0o644)
	missing := filepath.Join(dir, "absent.txt")
	cases := []struct {
		read       func() (*History, error)
		path, want string
	}{
		{func() (*History, error) { return ReadFiles([]string{good, missing}) }, missing, "no such file"},
		{func() (*History, error) { return ReadDir(dir) }, text, "not a saved count file"},
		{func() (*History, error) { return ReadFiles([]string{two}) }, two, "holds 2 commits"},
		{func() (*History, error) { return ReadFiles([]string{noCommit}) }, noCommit, "no commit line"},
		{func() (*History, error) { return ReadDir(filepath.Dir(noTime)) }, noTime, "no commit-time line"},
		{func() (*History, error) { return ReadDir(t.TempDir()) }, "", "no saved counts"},
	}
	for _, c := range cases {
		_, err := c.read()
		var fe *FileError
		if !errors.As(err, &fe) || c.path != "" && fe.Path != c.path || !strings.Contains(err.Error(), c.want) {
			t.Errorf("error %v, want %s naming %s", err, c.want, c.path)
		}
	}
}

// TestWriteText: the change points with their commits, sizes and levels;
// "no change point" for a series that held, and the single commit.
func TestWriteText(t *testing.T) {
	s := newSynth(1, 4)
	s.add("A", "instructions/op", 1000, [2]float64{0, 0}, 2, 0.03)
	var b bytes.Buffer
	Analyze(s.h, defaults).WriteText(&b)
	if !strings.Contains(b.String(), "change points (1):") || !strings.Contains(b.String(), "c2      A          instructions/op  +3.00%  1000.04 [1000 1000.09] c0…c1 (2)  1030.04 [1030 1030.1] c2…c3 (2)") {
		t.Fatalf("got:\n%s", b.String())
	}
	for n, want := range map[int]string{4: "no change point:", 1: "one commit: no change point can be found."} {
		s := newSynth(1, n)
		s.add("A", "instructions/op", 1000, instrNoise, -1, 0)
		b.Reset()
		Analyze(s.h, defaults).WriteText(&b)
		if !strings.Contains(b.String(), want) {
			t.Errorf("%d commits:\n%s", n, b.String())
		}
	}
}

// TestWriteJSON: one object whose changes name the commit, the unit and
// the levels.
func TestWriteJSON(t *testing.T) {
	s := newSynth(1, 4)
	s.add("A", "instructions/op", 1000, [2]float64{0, 0}, 2, 0.03)
	var b bytes.Buffer
	if err := Analyze(s.h, defaults).WriteJSON(&b); err != nil {
		t.Fatal(err)
	}
	var got jsonReport
	if err := json.Unmarshal(b.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	if len(got.Commits) != 4 || len(got.Changes) != 1 || got.Changes[0].Commit != "c2" || got.Changes[0].Before.To != "c1" || got.Changes[0].After.Commits != 2 || *got.Changes[0].Delta < 0.029 {
		t.Fatalf("got %s", b.String())
	}
}

// TestWriteDir: an SVG per benchmark, the one with a change point first
// on the page, its change marked.
func TestWriteDir(t *testing.T) {
	s := newSynth(1, 5)
	s.add("Flat", "instructions/op", 1000, instrNoise, -1, 0)
	s.add("Step/x", "instructions/op", 1000, instrNoise, 3, 0.05)
	s.add("Step/x", "est-cycles/op", 1300, cyclesNoise, 3, 0.05)
	dir := filepath.Join(t.TempDir(), "out")
	written, err := Analyze(s.h, defaults).WriteDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, p := range written {
		names = append(names, filepath.Base(p))
	}
	if strings.Join(names, " ") != "002-Step_x.svg 001-Flat.svg history.html" {
		t.Fatalf("wrote %v", names)
	}
	page, _ := os.ReadFile(filepath.Join(dir, "history.html"))
	html := string(page)
	if strings.Count(html, "<svg") != 2 || strings.Index(html, "Step/x") > strings.Index(html, ">Flat<") || !strings.Contains(html, "change points (2)") || !strings.Contains(html, "change points (2).") {
		t.Fatalf("page:\n%.2000s", html)
	}
}

// TestRead: one directory alone is read in commit-time order, files in
// the order given, and a directory among several paths is refused,
// named.
func TestRead(t *testing.T) {
	dir := t.TempDir()
	late := save(t, dir, "a.txt", "c2", "2026-11-22T08:00:00Z", map[string]float64{"A": 100})
	early := save(t, dir, "b.txt", "c1", "2026-11-21T08:00:00Z", map[string]float64{"A": 100})
	for _, c := range []struct {
		paths []string
		want  string
	}{{[]string{dir}, "c1 c2"}, {[]string{late, early}, "c2 c1"}} {
		h, err := Read(c.paths)
		if err != nil {
			t.Fatal(err)
		}
		var order []string
		for _, cm := range h.Commits {
			order = append(order, cm.Commit)
		}
		if got := strings.Join(order, " "); got != c.want {
			t.Errorf("Read(%v): commits %s, want %s", c.paths, got, c.want)
		}
	}
	_, err := Read([]string{late, dir})
	if want := dir + " is a directory: give one directory alone, or files"; err == nil || err.Error() != want {
		t.Errorf("a directory among files: %v, want %q", err, want)
	}
}

// TestWrite: the format chosen, and with a directory the page written
// and, after text alone, named.
func TestWrite(t *testing.T) {
	s := newSynth(1, 4)
	s.add("A", "instructions/op", 1000, [2]float64{0, 0}, 2, 0.03)
	r := Analyze(s.h, defaults)
	for _, format := range []string{"text", "json"} {
		var b bytes.Buffer
		dir := filepath.Join(t.TempDir(), "page")
		if err := r.Write(&b, format, dir); err != nil {
			t.Fatal(err)
		}
		page := filepath.Join(dir, "history.html")
		named := strings.HasSuffix(b.String(), "page: "+page+"\n")
		isJSON := json.Valid(b.Bytes())
		if !fileExists(page) || named != (format == "text") || isJSON != (format == "json") {
			t.Errorf("%s: page written %v, named %v, JSON %v:\n%s", format, fileExists(page), named, isJSON, b.String())
		}
	}
}

func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}
