package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/loopbench/loopbench/internal/harness/serve"
	"github.com/loopbench/loopbench/internal/harness/servercost"
)

// TestPeersHTTP: with -proto http the servers are the HTTP ones
// (loopbench's protocol- and stream-style, gonet, libuv's; skipped with
// its package where libuv is missing), each with an HTTPServer closed-loop
// line, and each server-side row at the rates from load -proto http's
// ceiling, or one line saying the rate was not met, with -syscalls its
// system call row beside (or a line saying perf cannot count); no echo
// server or floor client line.
func TestPeersHTTP(t *testing.T) {
	dir := peersTest(t)
	skipUnlessServesHTTP(t, "libuv")
	_, errs, raw := peersOut(t, dir, "-proto", "http", "-quick", "-count", "1", "-peers", "libuv", "-benchtime", "5ms", "-echotime", "300ms", "-syscalls")
	perfOff := strings.Contains(errs, "loopbench peers: -syscalls: ")
	if !strings.Contains(raw, "server-cost-load: loopbench load -proto http, 50 connections, 1024 B, 300ms a rate\n") {
		t.Errorf("raw.txt does not name load -proto http as the server-side rows' load:\n%s", raw)
	}
	rates := strings.Split(strings.Fields(lineWith(raw, "server-cost-rates: "))[1], ",")
	for _, s := range []serve.Server{{Name: "loopbench"}, {Name: "loopbench", Style: "stream"}, {Name: "gonet"}, {Name: "libuv"}} {
		if line := lineWith(raw, "BenchmarkHTTPServer/"+s.BenchName()+"/size=1024/conns=1 "); !strings.Contains(line, " req/s ") {
			t.Errorf("%s: HTTPServer line %q", s.Label(), line)
		}
		for _, rate := range rates {
			line := lineWith(raw, "Benchmark"+servercost.Name("ServerCost", s, servercost.HTTP, mustFloat(t, rate))+" ")
			didNot := strings.Contains(errs, s.Label()+" did not meet "+rate+" req/s (")
			if (line == "") == !didNot {
				t.Errorf("%s at %s: line %q, did-not-meet line %v: want one of them", s.Label(), rate, line, didNot)
			}
			sys := lineWith(raw, "Benchmark"+servercost.Name("ServerSyscalls", s, servercost.HTTP, mustFloat(t, rate))+" ")
			if line != "" && !perfOff && !strings.Contains(sys, " server-syscalls/req") && !strings.Contains(errs, s.Label()+" did not meet "+rate+" req/s under perf") {
				t.Errorf("%s at %s: no system call line, no did-not-meet line, and perf was not refused", s.Label(), rate)
			}
		}
	}
	for _, not := range []string{"BenchmarkEchoServer/", "BenchmarkEchoFloor/", "/style=task/"} {
		if strings.Contains(raw, not) {
			t.Errorf("raw.txt of -proto http has %q", not)
		}
	}
}

// TestPeersHTTPUsage: -proto takes echo or http, and http goes with
// neither -tls, -sweep nor -no-echo.
func TestPeersHTTPUsage(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-proto", "smtp"}, `-proto "smtp": want echo or http`},
		{[]string{"-proto", "http", "-tls"}, "-proto http does not go with -tls"},
		{[]string{"-proto", "http", "-sweep", "1000,2000"}, "-proto http does not go with -sweep"},
		{[]string{"-proto", "http", "-no-echo"}, "-proto http does not go with -no-echo"},
	} {
		_, errs, code := runOut(append(append([]string{"peers"}, c.args...), "-out", filepath.Join(t.TempDir(), "out"))...)
		if code != 2 || !strings.Contains(errs, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", c.args, code, errs, c.want)
		}
	}
}
