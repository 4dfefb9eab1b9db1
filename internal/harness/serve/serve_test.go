package serve

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
)

// TestParseListening: the address is the field after the prefix; a line
// without the prefix, or with nothing after it, is not a listening line.
func TestParseListening(t *testing.T) {
	for line, want := range map[string]string{
		"listening on 127.0.0.1:9000 (gonet)\n": "127.0.0.1:9000",
		"listening on [::1]:80\n":               "[::1]:80",
		"listening on \n":                       "",
		"Listening on 127.0.0.1:1\n":            "",
		"serve: bind: address in use\n":         "",
		"":                                      "",
	} {
		addr, ok := ParseListening(line)
		if addr != want || ok != (want != "") {
			t.Errorf("%q: %q %v, want %q", line, addr, ok, want)
		}
	}
}

// TestServerNames: a server's label and benchmark name, loopbench's
// non-default styles after its name or variant.
func TestServerNames(t *testing.T) {
	for s, want := range map[Server][2]string{
		{Name: "loopbench"}:                    {"loopbench", "ready=ringbuffer/timers=heap4ary/selector=epoll"},
		{Name: "loopbench", Style: "protocol"}: {"loopbench", "ready=ringbuffer/timers=heap4ary/selector=epoll"},
		{Name: "loopbench", Style: "task"}:     {"loopbench-task", "ready=ringbuffer/timers=heap4ary/selector=epoll/style=task"},
		{Name: "gonet"}:                        {"gonet", "impl=gonet"},
		{Name: "uvloop"}:                       {"uvloop", "impl=uvloop"},
	} {
		if got := [2]string{s.Label(), s.BenchName()}; got != want {
			t.Errorf("%+v: %q, want %q", s, got, want)
		}
	}
}

// fakeServe writes a program that stands in for loopbench serve: it
// records its arguments in a file and then runs script.
func fakeServe(t *testing.T, script string) (exe, argsFile string) {
	t.Helper()
	dir := t.TempDir()
	exe, argsFile = filepath.Join(dir, "serve"), filepath.Join(dir, "args")
	body := "#!/bin/sh\necho \"$@\" > " + argsFile + "\n" + script + "\n"
	if err := os.WriteFile(exe, []byte(body), 0o755); err != nil {
		t.Fatal(err)
	}
	return exe, argsFile
}

// TestLaunchStop: Start passes serve the server's flags and the extra
// ones, returns the address of its listening line, and Stop ends the
// process: once it returns, the process is gone.
func TestLaunchStop(t *testing.T) {
	exe, argsFile := fakeServe(t, `echo "listening on 127.0.0.1:4242 (fake)"; exec sleep 60`)
	var pinned [][]int
	l := Launcher{Exe: exe, Pin: func(cpus []int) error { pinned = append(pinned, cpus); return nil }}
	p, err := l.Start(Server{Name: "uvloop"}, []string{"-proto", "http"})
	if err != nil {
		t.Fatal(err)
	}
	if p.Addr != "127.0.0.1:4242" || p.PID <= 0 {
		t.Errorf("addr %q, pid %d", p.Addr, p.PID)
	}
	p.Stop()
	if err := syscall.Kill(p.PID, 0); !errors.Is(err, syscall.ESRCH) {
		t.Errorf("after Stop, the server process is still there: kill 0: %v", err)
	}
	b, err := os.ReadFile(argsFile)
	if err != nil {
		t.Fatal(err)
	}
	args := strings.Fields(string(b))
	if !slices.Equal(args[:4], []string{"serve", "-addr", "127.0.0.1:0", "-impl"}) || args[4] != "uvloop" || !slices.Equal(args[len(args)-2:], []string{"-proto", "http"}) {
		t.Errorf("serve's arguments: %q", args)
	}
	if len(pinned) > 1 || len(pinned) == 1 && len(pinned[0]) != 1 {
		t.Errorf("this process pinned %v, want once to one CPU at most", pinned)
	}
}

// TestLaunchNotListening: a serve that prints something else first is
// ended, and Start says what it printed; this process is not pinned.
func TestLaunchNotListening(t *testing.T) {
	exe, _ := fakeServe(t, `echo "bind: address already in use"; exec sleep 60`)
	l := Launcher{Exe: exe, Pin: func([]int) error { t.Error("pinned for a server that did not start"); return nil }}
	p, err := l.Start(Server{Name: "loopbench", Style: "task"}, nil)
	if err == nil || p != nil || !strings.Contains(err.Error(), `"bind: address already in use\n"`) {
		t.Fatalf("%v %v, want the line the server printed", p, err)
	}
}
