package peers

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fakePython writes an interpreter python3 into a new directory: it
// imports the modules mods only, and runs the peer script's version
// command, printing "LOOP 9.9 on Python 3.99". It returns its path.
func fakePython(t *testing.T, mods ...string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "python3")
	script := "#!/bin/sh\nif [ \"$1\" = -c ]; then\n" +
		"  for m in " + strings.Join(mods, " ") + "; do [ \"$2\" = \"import $m\" ] && exit 0; done\n" +
		"  exit 1\nfi\n" +
		"[ \"$3\" = version ] && echo \"$2 9.9 on Python 3.99\"\n"
	if err := os.WriteFile(path, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		t.Fatal(err)
	}
	return real
}

// TestPythonChoice: the Python peers run on an interpreter that has what
// they need, PATH's python3 (here one without uvloop, as a pyenv shim
// can be) or the next candidate (the system's), preferring one with
// uvloop for both; the version line names it; where none has the
// module, the skip names the interpreters tried and the package.
func TestPythonChoice(t *testing.T) {
	onPath := fakePython(t, "asyncio")
	system := fakePython(t, "asyncio", "uvloop")
	t.Setenv("PATH", filepath.Dir(onPath))
	saved := pythonCandidates
	t.Cleanup(func() { pythonCandidates = saved })
	ctx := context.Background()
	for _, c := range []struct {
		candidates []string
		want       map[string]string // peer: its interpreter, or its skip
	}{
		{[]string{"python3", system}, map[string]string{"asyncio": system, "uvloop": system}},
		{[]string{"python3"}, map[string]string{"asyncio": onPath, "uvloop": "no python3 here has the uvloop module (tried " + onPath + "; Debian: apt install python3-uvloop)"}},
		{[]string{"python3", onPath}, map[string]string{"uvloop": "no python3 here has the uvloop module (tried " + onPath + "; Debian: apt install python3-uvloop)"}},
		{[]string{filepath.Join(t.TempDir(), "python3")}, map[string]string{"asyncio": "no python3 (Debian: apt install python3)", "uvloop": "no python3 (Debian: apt install python3 python3-uvloop)"}},
	} {
		pythonCandidates = c.candidates
		for name, want := range c.want {
			ready, skipped := Find(ctx, []string{name}, t.TempDir())
			switch {
			case len(ready) == 1 && len(skipped) == 0:
				if got := ready[0].argv[0]; got != want {
					t.Errorf("%v: %s runs on %s, want %s", c.candidates, name, got, want)
				}
				if v, wantV := ready[0].Version(ctx), name+" 9.9 on Python 3.99 at "+want; v != wantV {
					t.Errorf("%v: %s version %q, want %q", c.candidates, name, v, wantV)
				}
			case len(ready) == 0 && len(skipped) == 1:
				if skipped[0].Reason != want {
					t.Errorf("%v: %s skipped: %s, want %q", c.candidates, name, skipped[0].Reason, want)
				}
			default:
				t.Errorf("%v: %s: ready %d, skipped %v", c.candidates, name, len(ready), skipped)
			}
		}
	}
}

// TestServesHTTP: a Python peer's HTTP server needs httptools in the
// peer's interpreter, and where it is missing the reason names the
// interpreter and python3-httptools; a peer with no HTTP server says so.
func TestServesHTTP(t *testing.T) {
	ctx := context.Background()
	without := &Peer{Name: "asyncio", python: fakePython(t, "asyncio")}
	if err := without.ServesHTTP(ctx); err == nil || err.Error() != without.python+" has no httptools module (Debian: apt install python3-httptools)" {
		t.Errorf("without httptools: %v", err)
	}
	with := &Peer{Name: "uvloop", python: fakePython(t, "asyncio", "uvloop", "httptools")}
	if err := with.ServesHTTP(ctx); err != nil {
		t.Errorf("with httptools: %v", err)
	}
	if err := (&Peer{Name: "libev"}).ServesHTTP(ctx); err == nil || !strings.HasPrefix(err.Error(), "libev has no HTTP server") {
		t.Errorf("libev: %v", err)
	}
	if got := with.HTTPServer("127.0.0.1", "0", 7); strings.Join(got, " ") != "http-server 127.0.0.1 0 7" {
		t.Errorf("HTTPServer: %q", got)
	}
}
