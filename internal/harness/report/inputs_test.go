package report

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestInputs: a file stands for itself and a run directory for its
// raw.txt, in the order given; a missing path and a directory without
// raw.txt are each an *InputError naming the path.
func TestInputs(t *testing.T) {
	dir := t.TempDir()
	run, file := filepath.Join(dir, "run"), filepath.Join(dir, "peers.txt")
	must(t, os.Mkdir(run, 0o755))
	must(t, os.WriteFile(filepath.Join(run, "raw.txt"), nil, 0o644))
	must(t, os.WriteFile(file, nil, 0o644))
	got, err := Inputs([]string{file, run})
	if want := []string{file, filepath.Join(run, "raw.txt")}; err != nil || !slices.Equal(got, want) {
		t.Fatalf("Inputs = %q, %v; want %q", got, err, want)
	}
	for arg, want := range map[string]string{filepath.Join(dir, "nosuch"): "nosuch: no such file or directory", dir: " is a directory without raw.txt"} {
		_, err := Inputs([]string{file, arg})
		var ie *InputError
		if !errors.As(err, &ie) || !strings.Contains(err.Error(), want) || strings.Count(err.Error(), arg) != 1 {
			t.Errorf("Inputs(%s) = %v, want an *InputError with %q", arg, err, want)
		}
	}
}

// TestCheckDir: a new or empty directory takes a report; one that holds
// a file, or holds an input (named another way), is an *InputError.
func TestCheckDir(t *testing.T) {
	dir := t.TempDir()
	empty, full := filepath.Join(dir, "empty"), filepath.Join(dir, "full")
	must(t, os.Mkdir(empty, 0o755))
	must(t, os.Mkdir(full, 0o755))
	must(t, os.WriteFile(filepath.Join(full, "raw.txt"), nil, 0o644))
	for _, out := range []string{empty, filepath.Join(dir, "new")} {
		if err := CheckDir(out, []string{filepath.Join(full, "raw.txt")}); err != nil {
			t.Errorf("CheckDir(%s) = %v", out, err)
		}
	}
	for _, c := range []struct {
		out   string
		files []string
		want  string
	}{
		{full, nil, "full exists and is not empty"},
		{full + "/.", []string{filepath.Join(full, "raw.txt")}, "holds the input"},
	} {
		var ie *InputError
		if err := CheckDir(c.out, c.files); !errors.As(err, &ie) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("CheckDir(%s, %q) = %v, want an *InputError with %q", c.out, c.files, err, c.want)
		}
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
