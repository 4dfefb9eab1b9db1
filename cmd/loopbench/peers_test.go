package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loopbench/loopbench/internal/sys/cpu"
	"github.com/loopbench/loopbench/peers"
	"github.com/loopbench/loopbench/selectors"
)

// peersTest skips a peers test in -short mode, restores this process's
// CPUs after it (peers pins the generator), and returns its results
// directory.
func peersTest(t *testing.T) string {
	if testing.Short() {
		t.Skip("builds and runs the peer programs")
	}
	all, _ := cpu.Allowed()
	t.Cleanup(func() { cpu.Pin(all) })
	return filepath.Join(t.TempDir(), "out")
}

// needPeers skips the test, in one line naming what is missing, unless
// every peer of names can run here (peers.Find, as peers finds them).
func needPeers(t *testing.T, names ...string) {
	t.Helper()
	if _, skipped := peers.Find(context.Background(), names, peers.CacheDir()); len(skipped) > 0 {
		t.Skip(skipped[0].String())
	}
}

// peersOut runs loopbench peers with args and -out dir (from peersTest),
// failing the test on any other exit than 0. It returns stdout, stderr
// and raw.txt.
func peersOut(t *testing.T, dir string, args ...string) (out, errs, raw string) {
	out, errs, code := runOut(append(append([]string{"peers"}, args...), "-out", dir)...)
	if code != 0 {
		t.Fatalf("exit %d\nstderr %s", code, errs)
	}
	b, err := os.ReadFile(filepath.Join(dir, "raw.txt"))
	if err != nil {
		t.Fatal(err)
	}
	return out, errs, string(b)
}

// TestPeersQuick runs loopbench peers end to end at tiny sizes with libev
// and libuv (skipping, with the package, where they are missing): every
// workload has loopbench's line and the peers', the report puts them side
// by side, and the echo servers are measured in their own processes.
func TestPeersQuick(t *testing.T) {
	dir := peersTest(t)
	needPeers(t, "libev", "libuv", peers.Floor)
	out, errs, raw := peersOut(t, dir, "-quick", "-count", "1", "-peers", "libev,libuv", "-benchtime", "5ms", "-echotime", "200ms")
	uring := []string{"BenchmarkIOChain/ready=ringbuffer/timers=heap4ary/selector=uring/p=100/a=1/mode=once-"}
	if err := selectors.Available("uring"); err != nil {
		uring = nil
		if !strings.Contains(errs, "not measured: loopbench IOChain/ready=ringbuffer/timers=heap4ary/selector=uring/p=100/a=1/mode=once: "+err.Error()) {
			t.Errorf("no line says why uring's IOChain was not measured: %s", errs)
		}
	}
	for _, want := range append(uring, []string{
		"peer-libev: libev ", "peer-libuv: libuv ",
		"BenchmarkCallSoon/ready=ringbuffer/timers=heap4ary/selector=epoll/mode=inflight/w=1000-",
		"BenchmarkCallSoon/impl=libev/mode=inflight/w=1000 ",
		"BenchmarkTimers/impl=libuv/op=cold-fire/k=1000 ",
		"BenchmarkIOChain/ready=ringbuffer/timers=heap4ary/selector=poll/p=100/a=1/mode=once-",
		"BenchmarkIOChain/impl=libev/selector=poll/p=100/a=1/mode=once ",
		"BenchmarkEchoServer/ready=ringbuffer/timers=heap4ary/selector=epoll/size=1024/conns=1 ",
		"BenchmarkEchoServer/impl=libuv/size=1024/conns=1 ",
		"BenchmarkEchoServer/impl=gonet/size=1024/conns=1 ",
		"peer-cfloor: cfloor ", "BenchmarkEchoFloor/impl=gonet/size=1024/conns=1 ",
		"BenchmarkEchoFloor/impl=libuv/size=1024/conns=1 ",
		"BenchmarkWakeup/ready=ringbuffer/timers=heap4ary/selector=epoll/wait=200us-",
		"BenchmarkWakeup/impl=cfloor/wait=200us ",
		"BenchmarkWakeup/impl=cfloor-spin/wait=200us ",
	}...) {
		if !strings.Contains(raw, want) {
			t.Errorf("raw.txt has no %q", want)
		}
	}
	if !strings.Contains(out, "impl=libev (peer)") {
		t.Errorf("the report does not put libev beside loopbench:\n%s", out)
	}
	if _, err := os.Stat(filepath.Join(dir, "report.html")); err != nil {
		t.Error(err)
	}
	if _, errs, code := runOut("peers", "-peers", "tokio", "-out", filepath.Join(t.TempDir(), "x")); code != 2 || !strings.Contains(errs, `unknown peer "tokio"`) {
		t.Errorf("unknown peer: exit %d %q", code, errs)
	}
}

// TestPeersSweepQuick runs peers -sweep at tiny steps: loopbench's three
// server styles, gonet and each echo peer installed here (a missing one is
// skipped in one line naming its package; libev, which has no echo
// server, is skipped for that, installed or not) are swept in their own
// processes, and the report draws them together with their knees.
func TestPeersSweepQuick(t *testing.T) {
	dir := peersTest(t)
	out, errs, raw := peersOut(t, dir, "-quick", "-sweep", "100,200", "-peers", "asyncio,uvloop,libuv,libev")
	servers := []string{"loopbench", "loopbench-task", "loopbench-stream", "gonet"}
	for _, p := range []string{"asyncio", "uvloop", "libuv"} {
		if !strings.Contains(errs, "skipped "+p+": ") {
			servers = append(servers, p)
		}
	}
	if !strings.Contains(errs, "skipped libev: it has no echo server to sweep") {
		t.Errorf("libev was not skipped for its lack of an echo server:\n%s", errs)
	}
	for _, s := range servers {
		for _, want := range []string{"BenchmarkLoad/label=" + s + "/size=1024/conns=1/rate=100-", "BenchmarkLoad/label=" + s + "/size=1024/conns=1/rate=200-", "BenchmarkLoadKnee/label=" + s + "/size=1024/conns=1/slo=1ms "} {
			if !strings.Contains(raw, want) {
				t.Errorf("raw.txt has no %q", want)
			}
		}
		if !strings.Contains(out, "| "+s+" | ") {
			t.Errorf("the knee table has no row for %s:\n%s", s, out)
		}
	}
	for _, f := range []string{"sweeps.svg", "sweeps.md", "report.html"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Error(err)
		}
	}
	if _, errs, code := runOut("peers", "-sweep", "100", "-count", "3", "-out", filepath.Join(t.TempDir(), "x")); code != 2 || !strings.Contains(errs, "-count does not go with -sweep") {
		t.Errorf("-sweep -count 3: exit %d %q", code, errs)
	}
}

// TestPeersSweepSpinUsage: -sweep-spin is refused below 0 and without
// -sweep, with one line and exit 2, before any peer runs.
func TestPeersSweepSpinUsage(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-sweep", "100", "-sweep-spin", "-1us"}, "-sweep-spin -1µs: want a duration of 0 or more"},
		{[]string{"-sweep-spin", "50us"}, "-sweep-spin applies to -sweep"},
	} {
		_, errs, code := runOut(append(append([]string{"peers"}, c.args...), "-out", filepath.Join(t.TempDir(), "x"))...)
		if code != 2 || strings.Count(errs, "\n") != 1 || !strings.Contains(errs, c.want) {
			t.Errorf("%v: exit %d %q, want one line with %q", c.args, code, errs, c.want)
		}
	}
}

// TestPeersRefusesNonEmptyOut: an -out that holds a file is refused in
// one line with exit 2 (runOut names its parent DIR), before any peer
// runs, and the file is kept.
func TestPeersRefusesNonEmptyOut(t *testing.T) {
	dir := t.TempDir()
	kept := filepath.Join(dir, "raw.txt")
	if err := os.WriteFile(kept, []byte("kept\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, errs, code := runOut("peers", "-out", dir)
	if want := "-out DIR/" + filepath.Base(dir) + " exists and is not empty"; code != 2 || strings.Count(errs, "\n") != 1 || !strings.Contains(errs, want) {
		t.Errorf("exit %d %q, want 2 and one line with %q", code, errs, want)
	}
	if b, err := os.ReadFile(kept); err != nil || string(b) != "kept\n" {
		t.Errorf("raw.txt after the refusal: %q, %v", b, err)
	}
}

// TestPeersSweepSkipReason: a peer without an echo server is skipped for
// that reason whether or not it is installed. Here no C peer can build
// (CC is a compiler that finds no library, as where libev-dev is not
// installed), and the run is interrupted at its first skip line.
func TestPeersSweepSkipReason(t *testing.T) {
	cc := filepath.Join(t.TempDir(), "cc")
	if err := os.WriteFile(cc, []byte("#!/bin/sh\necho 'fatal error: cannot find -lev' >&2\nexit 1\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("CC", cc)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	saved := interruptContext
	interruptContext = func(string) (context.Context, context.CancelFunc) { return ctx, cancel }
	t.Cleanup(func() { interruptContext = saved })
	errs := &cancelOnWrite{cancel: cancel}
	var out bytes.Buffer
	run([]string{"peers", "-quick", "-sweep", "100", "-peers", "libev", "-out", filepath.Join(t.TempDir(), "out")}, &out, errs)
	want := "loopbench peers: skipped libev: it has no echo server to sweep\n"
	if !strings.HasPrefix(errs.String(), want) || strings.Count(errs.String(), "skipped libev") != 1 {
		t.Errorf("stderr does not start with %q alone for libev:\n%s", want, errs)
	}
}

// cancelOnWrite is a stderr that cancels a run at its first line.
type cancelOnWrite struct {
	bytes.Buffer
	cancel context.CancelFunc
}

func (w *cancelOnWrite) Write(p []byte) (int, error) {
	w.cancel()
	return w.Buffer.Write(p)
}
