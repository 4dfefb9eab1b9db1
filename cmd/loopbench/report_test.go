package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

// copyRun copies a synthetic run directory of internal/harness/report's testdata
// to dir/name.
func copyRun(t *testing.T, dir, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "internal", "harness", "report", "testdata", "hosts", name, "raw.txt"))
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, name)
	if err := os.MkdirAll(p, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(p, "raw.txt"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestReportRunDirectories: two run directories of two hosts give one
// report in -out, a column per host, printed within 120 columns; the
// inputs' directories are left as they were.
func TestReportRunDirectories(t *testing.T) {
	dir := t.TempDir()
	a, b := copyRun(t, dir, "vm-a"), copyRun(t, dir, "vm-b")
	out := filepath.Join(dir, "out")
	stdout, errs, code := runOut("report", "-out", out, a, b)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if !strings.Contains(stdout, "vm-a") || !strings.Contains(stdout, "vm-b") {
		t.Errorf("no column per host:\n%s", stdout)
	}
	for _, l := range strings.Split(stdout, "\n") {
		if utf8.RuneCountInString(l) > 120 {
			t.Errorf("a printed line of %d columns: %q", utf8.RuneCountInString(l), l)
		}
	}
	for _, f := range []string{"summary.md", "report.html", "Timers-sec-op.svg"} {
		if _, err := os.Stat(filepath.Join(out, f)); err != nil {
			t.Errorf("-out lacks %s: %v", f, err)
		}
	}
	for _, d := range []string{a, b} {
		if entries, _ := os.ReadDir(d); len(entries) != 1 {
			t.Errorf("%s holds %d files, want its raw.txt alone", d, len(entries))
		}
	}
}

// TestReportRefuses: a missing path, a directory without raw.txt, an
// -out that is not empty or is an input's directory, an unknown -col key
// and run metadata as a row are each one line, exit 2, naming the path
// once.
func TestReportRefuses(t *testing.T) {
	dir := t.TempDir()
	a := copyRun(t, dir, "vm-a")
	empty := filepath.Join(dir, "empty")
	os.Mkdir(empty, 0o755)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{filepath.Join(dir, "missing")}, "missing: no such file"},
		{[]string{empty}, "empty is a directory without raw.txt"},
		{[]string{"-out", dir, a}, "exists and is not empty"},
		{[]string{"-out", a, filepath.Join(a, "raw.txt")}, "holds the input"},
		{[]string{"-out", filepath.Join(dir, "o"), "-col", "machine,(", a}, "-col"},
		{[]string{"-out", filepath.Join(dir, "o"), "-row", "seed", a}, "-row seed: run metadata"},
	} {
		_, errs, code := runOut(append([]string{"report"}, tc.args...)...)
		if code != 2 || strings.Count(errs, "\n") != 1 || !strings.Contains(errs, tc.want) {
			t.Errorf("report %q: exit %d, stderr %q; want 2 and one line with %q", tc.args, code, errs, tc.want)
		}
	}
}

// TestReportDefaultOut: without -out the report goes to a new
// report-<date> directory in the current one, never next to its input.
func TestReportDefaultOut(t *testing.T) {
	dir := t.TempDir()
	a := copyRun(t, dir, "vm-a")
	t.Chdir(dir)
	if _, errs, code := runOut("report", a); code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	got, _ := filepath.Glob(filepath.Join(dir, "report-*", "summary.md"))
	if len(got) != 1 {
		t.Fatalf("reports %q, want one in report-<date>", got)
	}
	if _, errs, code := runOut("report", a); code != 0 {
		t.Fatalf("second report: exit %d: %s", code, errs)
	}
	if got, _ := filepath.Glob(filepath.Join(dir, "report-*-2", "summary.md")); len(got) != 1 {
		t.Fatalf("second report %q, want report-<date>-2", got)
	}
}
