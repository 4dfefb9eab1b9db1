package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loopbench/loopbench/internal/cpu"
)

// TestPeersQuick runs loopbench peers end to end at tiny sizes with libev
// and libuv (skipping, with the package, where they are missing): every
// workload has loopbench's line and the peers', the report puts them side
// by side, and the echo servers are measured in their own processes.
func TestPeersQuick(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the peer programs")
	}
	dir := filepath.Join(t.TempDir(), "out")
	all, _ := cpu.Allowed()
	t.Cleanup(func() { cpu.Pin(all) })
	out, errs, code := runOut("peers", "-quick", "-count", "1", "-peers", "libev,libuv", "-benchtime", "5ms", "-echotime", "200ms", "-out", dir)
	if strings.Contains(errs, "skipped") {
		t.Skip(strings.TrimSpace(errs))
	}
	if code != 0 {
		t.Fatalf("exit %d\nstderr %s", code, errs)
	}
	raw, err := os.ReadFile(filepath.Join(dir, "raw.txt"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"peer-libev: libev ", "peer-libuv: libuv ",
		"BenchmarkCallSoon/ready=ringbuffer/timers=heap4ary/selector=epoll/mode=inflight/w=1000-",
		"BenchmarkCallSoon/impl=libev/mode=inflight/w=1000 ",
		"BenchmarkTimers/impl=libuv/op=cold-fire/k=1000 ",
		"BenchmarkIOChain/ready=ringbuffer/timers=heap4ary/selector=poll/p=100/a=1/mode=once-",
		"BenchmarkIOChain/impl=libev/selector=poll/p=100/a=1/mode=once ",
		"BenchmarkEchoServer/ready=ringbuffer/timers=heap4ary/selector=epoll/size=1024/conns=1 ",
		"BenchmarkEchoServer/impl=libuv/size=1024/conns=1 ",
		"BenchmarkEchoServer/impl=gonet/size=1024/conns=1 ",
	} {
		if !strings.Contains(string(raw), want) {
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
