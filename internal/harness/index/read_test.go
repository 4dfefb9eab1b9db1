package index

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestFromName: the date comes from a run directory's name, and the host
// too when the recorded commit follows it; a gate's name gives its date
// alone, and a name without a valid date gives nothing.
func TestFromName(t *testing.T) {
	for _, c := range []struct {
		name, commit string
		date, host   string
	}{
		{"2026-01-02-host-a-aaaaaaa", "aaaaaaaaaa", "2026-01-02", "host-a"},
		{"2026-01-02-host-a-aaaaaaa-2", "aaaaaaaaaa", "2026-01-02", "host-a"},
		{"2026-01-02-host-a-aaaaaaa", "", "2026-01-02", ""},
		{"gate-2026-01-01-aaaaaaa-bbbbbbb", "aaaaaaa", "2026-01-01", ""},
		{"2026-13-40-host-aaaaaaa", "aaaaaaa", "", ""},
		{"notes", "", "", ""},
	} {
		e := Entry{name: c.name, commit: c.commit}
		e.fromName()
		if e.date != c.date || e.host != c.host || e.dateByName != (c.date != "") || e.hostByName != (c.host != "") {
			t.Errorf("%s: date %q (%v), host %q (%v); want %q and %q", c.name, e.date, e.dateByName, e.host, e.hostByName, c.date, c.host)
		}
	}
}

// TestBuildRefuses: a missing directory, a file, a run directory itself
// and one without directories are *InputErrors naming the directory; a
// malformed pattern is a *PatternError naming it.
func TestBuildRefuses(t *testing.T) {
	root := t.TempDir()
	for name, content := range map[string]string{"run/raw.txt": "BenchmarkX-2\t1\t1 ns/op\n", "file.txt": "x\n", "empty/.keep": ""} {
		p := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, dir := range []string{"nosuch", "file.txt", "run", "empty"} {
		path := filepath.Join(root, dir)
		_, err := Reader{}.Build(path, nil, nil)
		if _, ok := errors.AsType[*InputError](err); !ok || strings.Count(err.Error(), path) != 1 {
			t.Errorf("Build(%s) = %v, want an *InputError naming it once", dir, err)
		}
	}
	_, err := Reader{}.Build(root, []string{"["}, nil)
	if pe, ok := errors.AsType[*PatternError](err); !ok || pe.Pattern != "[" {
		t.Errorf("Build with pattern [ = %v, want a *PatternError", err)
	}
}
