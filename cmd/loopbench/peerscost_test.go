package main

import (
	"bytes"
	"fmt"
	"io/fs"
	"strings"
	"testing"
	"time"

	"github.com/loopbench/loopbench/internal/harness/procstat"
)

// TestCostRates: a quarter and a half of the ceiling, rounded down to two
// significant figures; a ceiling too low to halve twice is refused.
func TestCostRates(t *testing.T) {
	for _, c := range []struct {
		ceiling float64
		want    string
	}{
		{70123, "[17000 35000]"},
		{8687, "[2100 4300]"},
		{400000, "[100000 200000]"},
		{99.9, "[24 49]"},
		{9, "[2 4]"},
	} {
		got, err := costRates(c.ceiling)
		if err != nil || fmt.Sprint(got) != c.want {
			t.Errorf("ceiling %g: %v %v, want %s", c.ceiling, got, err, c.want)
		}
	}
	for _, bad := range []float64{0, 7.9, -1} {
		if _, err := costRates(bad); err == nil || !strings.Contains(err.Error(), "too low") {
			t.Errorf("ceiling %g: %v", bad, err)
		}
	}
}

// TestMissed: a rate is met with no errors and 99 % of rate × window
// answered; otherwise the line says which.
func TestMissed(t *testing.T) {
	for _, c := range []struct {
		n    loadCounts
		want string
	}{
		{loadCounts{answered: 35000}, ""},
		{loadCounts{answered: 34650}, ""},
		{loadCounts{answered: 34649}, "34649 of 35000 requests answered"},
		{loadCounts{answered: 35000, errors: 2}, "2 errors"},
	} {
		if got := missed(35000, time.Second, c.n); got != c.want {
			t.Errorf("%+v: %q, want %q", c.n, got, c.want)
		}
	}
}

// TestServerPID: loopbench and gonet serve in serve's process; a peer in
// serve's one child, read from /proc.
func TestServerPID(t *testing.T) {
	files := map[string]string{"/proc/50/task/50/children": "51\n", "/proc/60/task/60/children": "61 62"}
	c := &serverCost{proc: procstat.Proc{
		ReadFile: func(p string) ([]byte, error) {
			if s, ok := files[p]; ok {
				return []byte(s), nil
			}
			return nil, fs.ErrNotExist
		},
		ReadDir: func(p string) ([]string, error) { return []string{strings.Split(p, "/")[2]}, nil },
	}}
	for _, x := range []struct {
		s    echoServer
		pid  int
		want string
	}{
		{echoServer{name: "loopbench", style: "task"}, 50, "50"},
		{echoServer{name: "gonet"}, 60, "60"},
		{echoServer{name: "uvloop"}, 50, "51"},
		{echoServer{name: "libuv"}, 60, "serve runs 2 processes, want the libuv server alone"},
	} {
		pid, err := c.serverPID(x.s, x.pid)
		got := fmt.Sprint(pid)
		if err != nil {
			got = err.Error()
		}
		if got != x.want {
			t.Errorf("%s in %d: %s, want %s", x.s.label(), x.pid, got, x.want)
		}
	}
}

// TestCostName: the server as EchoServer lines name it, loopbench's
// non-default styles after its variant; an HTTP server's line says
// proto=http.
func TestCostName(t *testing.T) {
	for s, want := range map[echoServer]string{
		{name: "loopbench"}:                    "ServerCost/ready=ringbuffer/timers=heap4ary/selector=epoll/size=1024/conns=50/rate=17000",
		{name: "loopbench", style: "protocol"}: "ServerCost/ready=ringbuffer/timers=heap4ary/selector=epoll/size=1024/conns=50/rate=17000",
		{name: "loopbench", style: "stream"}:   "ServerCost/ready=ringbuffer/timers=heap4ary/selector=epoll/style=stream/size=1024/conns=50/rate=17000",
		{name: "uvloop"}:                       "ServerCost/impl=uvloop/size=1024/conns=50/rate=17000",
	} {
		if got := costName("ServerCost", s, "echo", 17000); got != want {
			t.Errorf("%+v: %s, want %s", s, got, want)
		}
	}
	for s, want := range map[echoServer]string{
		{name: "loopbench", style: "stream"}: "ServerSyscalls/ready=ringbuffer/timers=heap4ary/selector=epoll/style=stream/proto=http/size=1024/conns=50/rate=2000",
		{name: "libuv"}:                      "ServerSyscalls/impl=libuv/proto=http/size=1024/conns=50/rate=2000",
	} {
		if got := costName("ServerSyscalls", s, httpProto, 2000); got != want {
			t.Errorf("%+v over HTTP: %s, want %s", s, got, want)
		}
	}
}

// TestCostVerdict: the same-run ratios pair each server's figures with
// loopbench's, rate by rate and unit by unit, and go through compare's
// verdict: a server that clearly costs more is a REGRESSION against
// loopbench, one within the minimum effect is ~.
func TestCostVerdict(t *testing.T) {
	c := &serverCost{rates: []float64{1000, 2000}}
	for i := range 8 {
		x := float64(i)
		c.record("loopbench", 1000, map[string]float64{"server-cpu-ns/req": 15000 + x, "server-cs/req": 1})
		c.record("gonet", 1000, map[string]float64{"server-cpu-ns/req": 21000 + x, "server-cs/req": 1})
		c.record("asyncio", 1000, map[string]float64{"server-cpu-ns/req": 15001 + x})
	}
	pairs := c.costPairs()
	if len(pairs) != 3 {
		t.Fatalf("%d pairs, want 3 (gonet's two units, asyncio's one): %+v", len(pairs), pairs)
	}
	for _, p := range pairs {
		if len(p.Base) != 8 || len(p.Head) != 8 || p.Better != -1 || p.Name != "ServerCost/rate=1000" {
			t.Errorf("pair %+v", p)
		}
	}
	var out bytes.Buffer
	c.printVerdict(&out)
	s := out.String()
	gonet, asyncio := lineWith(s[strings.Index(s, "gonet against loopbench"):], "ServerCost/rate=1000  server-cpu-ns/req"), lineWith(s[strings.Index(s, "asyncio against loopbench"):], "ServerCost/rate=1000  server-cpu-ns/req")
	if !strings.HasSuffix(gonet, "REGRESSION") || !strings.HasSuffix(asyncio, "~") {
		t.Errorf("gonet %q, asyncio %q; the table:\n%s", gonet, asyncio, s)
	}
	if !strings.Contains(s, "1 regressed") {
		t.Errorf("no totals:\n%s", s)
	}
}

// TestPeersServerCost runs peers at tiny sizes with asyncio: the floor
// client's ceiling is measured first and the rates chosen from it are
// written; every server (loopbench's three styles, gonet, asyncio) gets,
// at each rate, a ServerCost line with CPU and context switches per
// request, or one line saying it did not meet the rate; with -syscalls,
// a ServerSyscalls line beside, or one line saying perf cannot count;
// and the same-run verdict heads the output.
func TestPeersServerCost(t *testing.T) {
	dir := peersTest(t)
	out, errs, raw := peersOut(t, dir, true, "-quick", "-count", "1", "-peers", "asyncio", "-benchtime", "5ms", "-echotime", "200ms", "-syscalls")
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
	for _, s := range []echoServer{{name: "loopbench"}, {name: "loopbench", style: "task"}, {name: "loopbench", style: "stream"}, {name: "gonet"}, {name: "asyncio"}} {
		for _, rate := range rates {
			line := lineWith(raw, "Benchmark"+costName("ServerCost", s, "echo", mustFloat(t, rate))+" ")
			didNot := strings.Contains(errs, s.label()+" did not meet "+rate+" req/s (")
			if (line == "") == !didNot {
				t.Errorf("%s at %s: line %q, did-not-meet line %v: want one of them", s.label(), rate, line, didNot)
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
			sys := lineWith(raw, "Benchmark"+costName("ServerSyscalls", s, "echo", mustFloat(t, rate))+" ")
			if !perfOff && !strings.Contains(sys, " server-syscalls/req") && !strings.Contains(errs, s.label()+" did not meet "+rate+" req/s under perf") {
				t.Errorf("%s at %s: no system call line, no did-not-meet line, and perf was not refused", s.label(), rate)
			}
		}
	}
	if rows == 0 {
		t.Fatalf("no server met any rate:\n%s", errs)
	}
	paired := strings.Contains(raw, "Benchmark"+costName("ServerCost", echoServer{name: "loopbench"}, "echo", mustFloat(t, rates[0]))+" ") && met[rates[0]] > 1
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
