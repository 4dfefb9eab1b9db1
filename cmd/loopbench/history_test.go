package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// historyDir holds five saves of gate -save-only whose names do not sort
// in commit order: the fourth commit adds 2 % to schedule-cancel, and
// the third has no chain.
const historyDir = "testdata/history"

// TestHistoryGolden: the text and JSON of the saves' history, read as a
// directory (ordered by commit-time) and as files in commit order.
func TestHistoryGolden(t *testing.T) {
	files := []string{"save-e.txt", "save-c.txt", "save-a.txt", "save-d.txt", "save-b.txt"}
	for i := range files {
		files[i] = filepath.Join(historyDir, files[i])
	}
	for _, c := range []struct {
		args   []string
		golden string
	}{
		{[]string{historyDir}, "history.golden"},
		{files, "history.golden"},
		{append([]string{"-format", "json"}, historyDir), "history_json.golden"},
	} {
		var out, errb bytes.Buffer
		if err := run(append([]string{"history"}, c.args...), &out, &errb); err != nil || errb.Len() > 0 {
			t.Fatalf("history %q: %v %s", c.args, err, errb.String())
		}
		golden(t, c.golden, out.String())
	}
}

// TestHistoryPage: -out writes history.html and an SVG per benchmark, and
// refuses a directory that is not empty.
func TestHistoryPage(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "page")
	var out, errb bytes.Buffer
	if err := run([]string{"history", "-out", dir, historyDir}, &out, &errb); err != nil {
		t.Fatal(err, errb.String())
	}
	entries, _ := os.ReadDir(dir)
	page, _ := os.ReadFile(filepath.Join(dir, "history.html"))
	if len(entries) != 4 || strings.Count(string(page), "<svg") != 3 || !strings.Contains(out.String(), "page: "+filepath.Join(dir, "history.html")) {
		t.Fatalf("%d files, page %d bytes, output:\n%s", len(entries), len(page), out.String())
	}
	err := run([]string{"history", "-out", dir, historyDir}, &out, &errb)
	if exitCode(err) != 2 || !strings.Contains(err.Error(), "not empty") {
		t.Fatalf("second -out: %v", err)
	}
}

// TestHistoryErrors: exit 2 with one line naming what was wrong.
func TestHistoryErrors(t *testing.T) {
	notSave := filepath.Join(t.TempDir(), "notes.txt")
	os.WriteFile(notSave, []byte("notes\n"), 0o644)
	good := filepath.Join(historyDir, "save-a.txt")
	cases := []struct {
		args []string
		want string
	}{
		{[]string{good, "testdata/history/absent.txt"}, "testdata/history/absent.txt: no such file or directory"},
		{[]string{good, notSave}, notSave + ": no benchmark results: not a saved count file"},
		{[]string{good, historyDir}, historyDir + " is a directory"},
		{[]string{}, "want a directory of saved counts"},
		{[]string{"-min-effect", "0.5", good}, `-min-effect "0.5"`},
		{[]string{"-min-segment", "0", good}, "-min-segment 0"},
		{[]string{"-format", "xml", good}, `-format "xml"`},
	}
	for _, c := range cases {
		var out, errb bytes.Buffer
		err := run(append([]string{"history"}, c.args...), &out, &errb)
		lines := strings.Split(strings.TrimSpace(errb.String()), "\n")
		if exitCode(err) != 2 || len(lines) != 1 || !strings.Contains(lines[0], c.want) {
			t.Errorf("history %q: exit %d, stderr %q; want 2 and one line with %q", c.args, exitCode(err), errb.String(), c.want)
		}
	}
}
