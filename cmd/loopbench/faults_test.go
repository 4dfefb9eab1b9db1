package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/loopbench/loopbench/internal/measure/echo"
	"golang.org/x/perf/benchfmt"
)

// interruptAfter makes the next command's interrupt context end after d.
func interruptAfter(t *testing.T, d time.Duration) {
	saved := interruptContext
	interruptContext = func(string) (context.Context, context.CancelFunc) {
		return context.WithTimeout(context.Background(), d)
	}
	t.Cleanup(func() { interruptContext = saved })
}

func listenStalled(t *testing.T) string {
	return serveLoopback(t, func(c net.Conn) { go func() { io.Copy(io.Discard, c); c.Close() }() })
}

// serveLoopback listens on a loopback port until the test ends, hands
// every connection it accepts to accepted, and returns its address.
func serveLoopback(t *testing.T, accepted func(net.Conn)) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			accepted(c)
		}
	}()
	return ln.Addr().String()
}

// TestLoadFaults: the reproductions of a stalled server, Ctrl-C in the
// warmup and in the window, and runs against a healthy server, with their
// exit codes and messages.
func TestLoadFaults(t *testing.T) {
	stalled := listenStalled(t)
	g, err := echo.ServeGonet("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	healthy := g.Addr().String()

	start := time.Now()
	out, errs, code := runOut("load", "-addr", stalled, "-conns", "2", "-warmup", "0s", "-duration", "1s", "-timeout", "200ms")
	if took := time.Since(start); took > 5*time.Second {
		t.Fatalf("a stalled server held the run %v (duration 1s, timeout 200ms)", took)
	}
	if code != 1 || !strings.Contains(errs, "no request completed in the window") || !strings.Contains(out, "x read: i/o timeout") {
		t.Fatalf("stalled: exit %d\nstderr %s\nstdout %s", code, errs, out)
	}

	interruptAfter(t, 150*time.Millisecond)
	out, errs, code = runOut("load", "-addr", healthy, "-conns", "2", "-size", "64", "-warmup", "2s", "-duration", "2s")
	if code != 1 || !strings.Contains(out, "\nthe window's 0 requests = 0 answered") || !strings.Contains(errs, "interrupted after 0s of 2s") {
		t.Fatalf("interrupted in the warmup: exit %d\nstderr %s\nstdout %s", code, errs, out)
	}

	interruptAfter(t, 300*time.Millisecond)
	out, errs, code = runOut("load", "-addr", healthy, "-conns", "2", "-size", "64", "-warmup", "0s", "-duration", "5s", "-format", "benchfmt")
	if code != 1 || !strings.Contains(out, "\ninterrupted: after ") || !strings.Contains(errs, "interrupted after") {
		t.Fatalf("interrupted in the window: exit %d\nstderr %s\nstdout %s", code, errs, out)
	}
	r := benchfmt.NewReader(strings.NewReader(out), "load")
	for r.Scan() {
		if res, ok := r.Result().(*benchfmt.Result); ok && !strings.HasPrefix(res.GetConfig("interrupted"), "after ") {
			t.Fatalf("the interrupted run's result has no interrupted config: %s", out)
		}
	}
}

// TestLoadCountAndLabel: -count runs into one benchfmt file, named by
// -label; JSON keys carry their units.
func TestLoadCountAndLabel(t *testing.T) {
	g, err := echo.ServeGonet("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	out, errs, code := runOut("load", "-addr", g.Addr().String(), "-label", "gonet one", "-conns", "2", "-size", "64", "-warmup", "0s", "-duration", "5s", "-requests", "50", "-count", "3", "-format", "benchfmt")
	if code != 0 || strings.Count(out, "BenchmarkLoad/label=gonet_one/size=64/conns=2/rate=0-") != 3 {
		t.Fatalf("exit %d %s\n%s", code, errs, out)
	}
	out, _, code = runOut("load", "-addr", g.Addr().String(), "-conns", "2", "-size", "64", "-warmup", "0s", "-duration", "5s", "-requests", "50", "-format", "json")
	var js struct {
		Label string `json:"label"`
		Runs  []struct {
			Requests  int64 `json:"requests"`
			Corrected struct {
				P99 *int64 `json:"p99_ns"`
			} `json:"corrected_latency"`
		} `json:"runs"`
	}
	if err := json.Unmarshal([]byte(out), &js); err != nil || code != 0 || js.Label != g.Addr().String() || len(js.Runs) != 1 || js.Runs[0].Requests != 50 || js.Runs[0].Corrected.P99 == nil {
		t.Fatalf("json (exit %d, %v):\n%s", code, err, out)
	}
}

// TestCLIMessages: every usage message changed for faults, one line each,
// exit 2 (golden).
func TestCLIMessages(t *testing.T) {
	cases := [][]string{
		{"bogus"},
		{"load", "-addr", "127.0.0.1:1", "-conns", "0"},
		{"load", "-addr", "127.0.0.1:1", "-size", "4"},
		{"load", "-addr", "127.0.0.1:1", "-duration", "-1s"},
		{"load", "-addr", "127.0.0.1:1", "-warmup", "-1s"},
		{"load", "-addr", "127.0.0.1:1", "-rate", "-5"},
		{"load", "-addr", "127.0.0.1:1", "-timeout", "0s"},
		{"load", "-addr", "127.0.0.1:1", "-count", "0"},
		{"load", "-addr", "127.0.0.1:1", "-max-errors", "many"},
		{"load", "-addr", "127.0.0.1:1", "-cpu", "4096"},
		{"load"},
		{"load", "-addr", "127.0.0.1:1", "-sweep", "2000:400:x1.4"},
		{"load", "-addr", "127.0.0.1:1", "-sweep", "fast"},
		{"load", "-addr", "127.0.0.1:1", "-sweep", "1000,500"},
		{"load", "-addr", "127.0.0.1:1", "-sweep", "1000", "-rate", "5"},
		{"load", "-addr", "127.0.0.1:1", "-sweep", "1000", "-slo", "0s"},
		{"load", "-addr", "127.0.0.1:1", "-slo", "0s"},
		{"load", "-addr", "127.0.0.1:1", "-out", "/nonexistent/dir/gen.json"},
		{"load", "-addr", "127.0.0.1:1", "-report", "/proc/version/report"},
		{"serve", "-cpu", "4096"},
		{"serve", "-duration", "-1s"},
		{"serve", "-impl", "gonet", "-style", "task"},
		{"serve", "-addr", "no.such.host.invalid:0"},
		{"serve", "-work", "-1ms"},
		{"serve", "-work", "1ms", "-size", "-1"},
		{"serve", "-size", "64"},
		{"serve", "-impl", "gonet", "-work", "1ms"},
		{"run", "-count", "0"},
		{"run", "-benchtime", "0s"},
		{"run", "-variants", "bogus"},
	}
	var all strings.Builder
	for _, args := range cases {
		var out, errb bytes.Buffer
		err := run(args, &out, &errb)
		msg := errb.String()
		if args[0] == "bogus" {
			msg, _, _ = strings.Cut(msg, "\n")
			msg += "\n"
		}
		if exitCode(err) != 2 || strings.Count(msg, "\n") != 1 {
			t.Errorf("%q: exit %d, stderr %q; want 2 and one line", args, exitCode(err), msg)
		}
		// The CPUs this machine has are not part of the message's form.
		msg = regexp.MustCompile(`may use CPUs [0-9,-]+`).ReplaceAllString(msg, "may use CPUs N")
		all.WriteString(strings.Join(args, " ") + "\n\t" + msg)
	}
	golden(t, "messages.golden", all.String())
	var out, errb bytes.Buffer
	if err := run([]string{"version", "-h"}, &out, &errb); err != nil || !strings.Contains(errb.String(), "usage: loopbench version") {
		t.Fatalf("version -h: %v %q", err, errb.String())
	}
}

// TestServeHostName: serve takes a host name, as load does.
func TestServeHostName(t *testing.T) {
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	go func() {
		err := run([]string{"serve", "-addr", "localhost:0", "-duration", "1s"}, pw, io.Discard)
		pw.Close()
		done <- err
	}()
	line, _ := bufio.NewReader(pr).ReadString('\n')
	go io.Copy(io.Discard, pr)
	if err := <-done; err != nil || !strings.HasPrefix(line, "listening on ") {
		t.Fatalf("serve -addr localhost:0: %q, %v", line, err)
	}
}

// TestReportBadInput: nothing readable is exit 2 with one line; a
// truncated line is exit 1, naming it, with the rest reported.
func TestReportBadInput(t *testing.T) {
	dir := t.TempDir()
	empty := filepath.Join(dir, "empty.txt")
	os.WriteFile(empty, nil, 0o644)
	nobench := filepath.Join(dir, "nobench.txt")
	os.WriteFile(nobench, []byte("goos: linux\nPASS\n"), 0o644)
	for _, p := range []string{empty, nobench, filepath.Join(dir, "missing.txt")} {
		_, errs, code := runOut("report", "-o", filepath.Join(dir, "out"), p)
		if code != 2 || strings.Count(errs, "\n") != 1 {
			t.Errorf("report %s: exit %d, stderr %q; want 2 and one line", p, code, errs)
		}
	}
	trunc := filepath.Join(dir, "trunc.txt")
	os.WriteFile(trunc, []byte("goos: linux\nBenchmarkX/impl=a-2\t10\t5 ns/op\nBenchmarkX/impl=a-2\t10\t6 ns/op\nBenchmarkX/impl=a-2\t10\t7"), 0o644)
	out, errs, code := runOut("report", "-o", filepath.Join(dir, "t"), trunc)
	if code != 1 || !strings.Contains(errs, "trunc.txt:4") || !strings.Contains(out, "impl=a") {
		t.Fatalf("truncated: exit %d\nstderr %s\nstdout %s", code, errs, out)
	}
	if _, err := os.Stat(filepath.Join(dir, "t", "report.html")); err != nil {
		t.Fatalf("no report of the readable lines: %v", err)
	}
}

// TestLoadServerWentAway: against a server that resets every connection,
// the failed run and its fell-behind warning say the server went away,
// not that something saturates.
func TestLoadServerWentAway(t *testing.T) {
	addr := serveLoopback(t, func(c net.Conn) {
		// The reset comes once a request arrives, so after the dial has
		// completed: a reset that beat the dial's own check would be a
		// connection that could not be opened.
		c.SetReadDeadline(time.Now().Add(time.Second))
		c.Read(make([]byte, 64))
		c.(*net.TCPConn).SetLinger(0) // a reset
		c.Close()
	})
	out, errs, code := runOut("load", "-addr", addr, "-conns", "2", "-size", "64", "-warmup", "0s", "-duration", "300ms", "-timeout", "500ms", "-rate", "200")
	behind := regexp.MustCompile(`(?m)^loopbench load: warning: fell behind the schedule \(0 of 200 req/s\): the server went away \([0-9]+ of [0-9]+ errors are connections refused, reset or closed by it\)$`)
	failed := regexp.MustCompile(`(?m)^loopbench load: no request completed in the window \([0-9]+ errors, the most frequent .*\): the server went away \(`)
	if code != 1 || !behind.MatchString(errs) || !failed.MatchString(errs) || strings.Contains(errs, "saturates") {
		t.Fatalf("exit %d\nstderr %s\nstdout %s", code, errs, out)
	}
}
