package loadresult

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestOutFile: -out's file appears only once its results are written,
// whole; abandoned, it leaves nothing; a directory is refused before
// anything is written.
func TestOutFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "r.json")
	o, err := CreateOut(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Fatalf("the file exists before its results: %v", err)
	}
	r := synth(t, "g", t0, 2*time.Second, []int64{100, 200}, 3)
	if err := o.Write(nil, []Result{r, r}); err != nil {
		t.Fatal(err)
	}
	if rs, err := ReadFile(path); err != nil || len(rs) != 2 {
		t.Fatalf("read back %d results, %v; want 2", len(rs), err)
	}
	o, _ = CreateOut(filepath.Join(dir, "gone.json"))
	o.Abandon()
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("after Abandon, %d files in the directory; want 1", len(entries))
	}
	if _, err := CreateOut(dir); err == nil || !strings.Contains(err.Error(), "is a directory") {
		t.Errorf("a directory: %v", err)
	}
	var out bytes.Buffer
	if o, _ := CreateOut("-"); o.Write(&out, []Result{r}) != nil || strings.Count(out.String(), "\n") != 1 {
		t.Errorf("-: %q", out.String())
	}
}

// TestCheckRefusals: refusals fail in one line naming the first and how
// many more, unless forced; forced, each is a warning line, after which
// come the warnings.
func TestCheckRefusals(t *testing.T) {
	var w bytes.Buffer
	err := CheckRefusals(&w, []string{"a", "b"}, []string{"c"}, false)
	if err == nil || err.Error() != "refused: a (and 1 more); -force merges anyway" || w.Len() != 0 {
		t.Fatalf("%v, %q", err, w.String())
	}
	if err := CheckRefusals(&w, []string{"a", "b"}, []string{"c"}, true); err != nil {
		t.Fatal(err)
	}
	want := "loopbench merge: warning: forced: a\nloopbench merge: warning: forced: b\nloopbench merge: warning: c\n"
	if w.String() != want {
		t.Errorf("%q, want %q", w.String(), want)
	}
}
