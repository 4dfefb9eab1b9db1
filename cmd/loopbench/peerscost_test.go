package main

import (
	"fmt"
	"strings"
	"testing"

	"github.com/loopbench/loopbench/internal/harness/serve"
	"github.com/loopbench/loopbench/internal/harness/servercost"
	"github.com/loopbench/loopbench/peers"
)

// TestPeersServerCost runs peers at tiny sizes with asyncio: the floor
// client's ceiling is measured first and the rates chosen from it are
// written; every server (loopbench's three styles, gonet, asyncio) gets,
// at each rate, a ServerCost line with CPU and context switches per
// request, or one line saying it did not meet the rate; with -syscalls,
// a ServerSyscalls line beside, or one line saying perf cannot count;
// and the same-run verdict heads the output.
func TestPeersServerCost(t *testing.T) {
	dir := peersTest(t)
	needPeers(t, "asyncio", peers.Floor)
	out, errs, raw := peersOut(t, dir, "-quick", "-count", "1", "-peers", "asyncio", "-benchtime", "5ms", "-echotime", "200ms", "-syscalls")
	for _, want := range []string{"floor-slack: 1ns\n", "server-cost-ceiling: ", "server-cost-rates: ", "Unit server-cpu-ns/req better=lower\n", "Unit server-cs/req better=lower\n"} {
		if !strings.Contains(raw, want) {
			t.Errorf("raw.txt has no %q", want)
		}
	}
	rates := strings.Split(strings.Fields(lineWith(raw, "server-cost-rates: "))[1], ",")
	if len(rates) != 2 || !strings.Contains(errs, "each server is measured at a quarter and a half of it, rounded down: "+rates[0]+" and "+rates[1]+" req/s") {
		t.Fatalf("rates %q; stderr:\n%s", rates, errs)
	}
	perfOff := strings.Contains(errs, "loopbench peers: -syscalls: ")
	rows, met := 0, map[string]int{} // rows; servers met per rate
	for _, s := range []serve.Server{{Name: "loopbench"}, {Name: "loopbench", Style: "task"}, {Name: "loopbench", Style: "stream"}, {Name: "gonet"}, {Name: "asyncio"}} {
		for _, rate := range rates {
			line := lineWith(raw, "Benchmark"+servercost.Name("ServerCost", s, "echo", mustFloat(t, rate))+" ")
			didNot := strings.Contains(errs, s.Label()+" did not meet "+rate+" req/s (")
			if (line == "") == !didNot {
				t.Errorf("%s at %s: line %q, did-not-meet line %v: want one of them", s.Label(), rate, line, didNot)
				continue
			}
			if line == "" {
				continue
			}
			rows++
			met[rate]++
			for _, u := range []string{" server-cpu-ns/req", " server-cs/req", " req/s", " p99-ns"} {
				if !strings.Contains(line, u) {
					t.Errorf("%s: no%s", line, u)
				}
			}
			sys := lineWith(raw, "Benchmark"+servercost.Name("ServerSyscalls", s, "echo", mustFloat(t, rate))+" ")
			if !perfOff && !strings.Contains(sys, " server-syscalls/req") && !strings.Contains(errs, s.Label()+" did not meet "+rate+" req/s under perf") {
				t.Errorf("%s at %s: no system call line, no did-not-meet line, and perf was not refused", s.Label(), rate)
			}
		}
	}
	if rows == 0 {
		t.Fatalf("no server met any rate:\n%s", errs)
	}
	paired := strings.Contains(raw, "Benchmark"+servercost.Name("ServerCost", serve.Server{Name: "loopbench"}, "echo", mustFloat(t, rates[0]))+" ") && met[rates[0]] > 1
	if paired && !strings.HasPrefix(out, "Server cost per answered request at "+rates[0]+" and "+rates[1]+" req/s") {
		t.Errorf("the output does not open with the server-side verdict:\n%.400s", out)
	}
}

func mustFloat(t *testing.T, s string) float64 {
	t.Helper()
	var f float64
	if _, err := fmt.Sscan(s, &f); err != nil {
		t.Fatal(err)
	}
	return f
}
