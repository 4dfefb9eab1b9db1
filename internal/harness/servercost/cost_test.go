package servercost

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"testing"
	"time"

	"github.com/loopbench/loopbench/internal/harness/procstat"
	"github.com/loopbench/loopbench/internal/harness/serve"
	"golang.org/x/perf/benchfmt"
)

// TestRates: a quarter and a half of the ceiling, rounded down to two
// significant figures; a ceiling too low to halve twice is refused with
// a LowCeilingError naming it.
func TestRates(t *testing.T) {
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
		got, err := Rates(c.ceiling)
		if err != nil || fmt.Sprint(got) != c.want {
			t.Errorf("ceiling %g: %v %v, want %s", c.ceiling, got, err, c.want)
		}
	}
	for _, bad := range []float64{0, 7.9, -1} {
		_, err := Rates(bad)
		var low *LowCeilingError
		if !errors.As(err, &low) || low.Ceiling != bad {
			t.Errorf("ceiling %g: %v, want a LowCeilingError of %g", bad, err, bad)
		}
	}
}

// TestMissed: a rate is met with no errors and 99 % of rate × window
// answered; otherwise a MissError says which, in its fields and its text.
func TestMissed(t *testing.T) {
	for _, c := range []struct {
		n    loadCounts
		want *MissError
		text string
	}{
		{loadCounts{answered: 35000}, nil, ""},
		{loadCounts{answered: 34650}, nil, ""},
		{loadCounts{answered: 34649}, &MissError{Answered: 34649, Intended: 35000}, "34649 of 35000 requests answered"},
		{loadCounts{answered: 35000, errors: 2}, &MissError{Errors: 2, Answered: 35000, Intended: 35000}, "2 errors"},
	} {
		got := missed(35000, time.Second, c.n)
		if (got == nil) != (c.want == nil) || got != nil && (*got != *c.want || got.Error() != c.text) {
			t.Errorf("%+v: %+v, want %+v (%q)", c.n, got, c.want, c.text)
		}
	}
}

// TestServerPID: loopbench and gonet serve in serve's process; a peer in
// serve's one child, read from /proc.
func TestServerPID(t *testing.T) {
	files := map[string]string{"/proc/50/task/50/children": "51\n", "/proc/60/task/60/children": "61 62"}
	c := &cost{proc: procstat.Proc{
		ReadFile: func(p string) ([]byte, error) {
			if s, ok := files[p]; ok {
				return []byte(s), nil
			}
			return nil, fs.ErrNotExist
		},
		ReadDir: func(p string) ([]string, error) { return []string{strings.Split(p, "/")[2]}, nil },
	}}
	for _, x := range []struct {
		s    serve.Server
		pid  int
		want string
	}{
		{serve.Server{Name: "loopbench", Style: "task"}, 50, "50"},
		{serve.Server{Name: "gonet"}, 60, "60"},
		{serve.Server{Name: "uvloop"}, 50, "51"},
		{serve.Server{Name: "libuv"}, 60, "serve runs 2 processes, want the libuv server alone"},
	} {
		pid, err := c.serverPID(x.s, x.pid)
		got := fmt.Sprint(pid)
		if err != nil {
			got = err.Error()
		}
		if got != x.want {
			t.Errorf("%s in %d: %s, want %s", x.s.Label(), x.pid, got, x.want)
		}
	}
}

// TestName: the server as EchoServer lines name it, loopbench's
// non-default styles after its variant; an HTTP server's line says
// proto=http.
func TestName(t *testing.T) {
	for s, want := range map[serve.Server]string{
		{Name: "loopbench"}:                    "ServerCost/ready=ringbuffer/timers=heap4ary/selector=epoll/size=1024/conns=50/rate=17000",
		{Name: "loopbench", Style: "protocol"}: "ServerCost/ready=ringbuffer/timers=heap4ary/selector=epoll/size=1024/conns=50/rate=17000",
		{Name: "loopbench", Style: "stream"}:   "ServerCost/ready=ringbuffer/timers=heap4ary/selector=epoll/style=stream/size=1024/conns=50/rate=17000",
		{Name: "uvloop"}:                       "ServerCost/impl=uvloop/size=1024/conns=50/rate=17000",
	} {
		if got := Name("ServerCost", s, "echo", 17000); got != want {
			t.Errorf("%+v: %s, want %s", s, got, want)
		}
	}
	for s, want := range map[serve.Server]string{
		{Name: "loopbench", Style: "stream"}: "ServerSyscalls/ready=ringbuffer/timers=heap4ary/selector=epoll/style=stream/proto=http/size=1024/conns=50/rate=2000",
		{Name: "libuv"}:                      "ServerSyscalls/impl=libuv/proto=http/size=1024/conns=50/rate=2000",
	} {
		if got := Name("ServerSyscalls", s, HTTP, 2000); got != want {
			t.Errorf("%+v over HTTP: %s, want %s", s, got, want)
		}
	}
}

// TestCostVerdict: the same-run ratios pair each server's figures with
// loopbench's, rate by rate and unit by unit, and go through compare's
// verdict: a server that clearly costs more is a REGRESSION against
// loopbench, one within the minimum effect is ~.
func TestCostVerdict(t *testing.T) {
	c := &cost{rates: []float64{1000, 2000}}
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
	Outcome{cost: c}.WriteVerdict(&out)
	s := out.String()
	gonet, asyncio := lineWith(s[strings.Index(s, "gonet against loopbench"):], "ServerCost/rate=1000  server-cpu-ns/req"), lineWith(s[strings.Index(s, "asyncio against loopbench"):], "ServerCost/rate=1000  server-cpu-ns/req")
	if !strings.HasSuffix(gonet, "REGRESSION") || !strings.HasSuffix(asyncio, "~") {
		t.Errorf("gonet %q, asyncio %q; the table:\n%s", gonet, asyncio, s)
	}
	if !strings.Contains(s, "1 regressed") {
		t.Errorf("no totals:\n%s", s)
	}
	out.Reset()
	Outcome{}.WriteVerdict(&out)
	if out.Len() != 0 {
		t.Errorf("a run without server-side rows wrote a verdict: %q", out.String())
	}
}

// lineWith returns the first line of s that starts with prefix.
func lineWith(s, prefix string) string {
	for _, l := range strings.Split(s, "\n") {
		if strings.HasPrefix(l, prefix) {
			return l
		}
	}
	return ""
}

// TestCostAtFlatOut: server-cores is the server's CPU time over the wall
// time of its window; one at 0.99 of a CPU ran flat out, which one line
// says, and its figures at that rate leave the verdict, while one at 0.5
// keeps them.
func TestCostAtFlatOut(t *testing.T) {
	var ticks int64 // the server's utime, in clock ticks
	var clock time.Time
	var errs, raw bytes.Buffer
	r := &run{Config: Config{Proto: "echo", Stderr: &errs, Out: benchfmt.NewWriter(&raw)}}
	r.cost = &cost{
		rates:  []float64{1000, 2000},
		window: time.Second,
		now:    func() time.Time { return clock },
		proc: procstat.Proc{
			ReadFile: func(p string) ([]byte, error) {
				if strings.HasSuffix(p, "/status") {
					return []byte("voluntary_ctxt_switches:\t0\nnonvoluntary_ctxt_switches:\t0\n"), nil
				}
				return []byte(fmt.Sprintf("50 (serve) R 1 2 3 4 5 6 7 8 9 10 %d 0 0 0", ticks)), nil
			},
			ReadDir: func(string) ([]string, error) { return []string{"50"}, nil },
		},
	}
	for _, x := range []struct {
		s    serve.Server
		rate float64
		busy float64 // of a CPU over the window
	}{
		{serve.Server{Name: "loopbench"}, 1000, 0.5},
		{serve.Server{Name: "libuv"}, 1000, 0.5},
		{serve.Server{Name: "loopbench"}, 2000, 0.6},
		{serve.Server{Name: "libuv"}, 2000, 0.99},
	} {
		r.cost.drive = func(_ context.Context, _ string, rate float64, d time.Duration, _ []string) (costLoad, error) {
			ticks += int64(x.busy * d.Seconds() * float64(procstat.UserHZ))
			clock = clock.Add(d)
			return costLoad{loadCounts: loadCounts{answered: rate * d.Seconds()}, reqs: rate, p50: 1e6}, nil
		}
		if err := r.costAt(context.Background(), x.s, "addr", 50, x.rate); err != nil {
			t.Fatal(err)
		}
	}
	if got := strings.Count(errs.String(), "ran flat out"); got != 1 || !strings.Contains(errs.String(), "libuv ran flat out at 2000 req/s (0.99 of a CPU over the window, p50 1ms)") {
		t.Errorf("stderr %q, want one line on libuv at 2000 req/s", errs.String())
	}
	if !strings.Contains(raw.String(), "impl=libuv/size=1024/conns=50/rate=2000 2000 495000 server-cpu-ns/req 0 server-cs/req 0.99 server-cores") {
		t.Errorf("raw.txt:\n%s", raw.String())
	}
	pairs := r.cost.costPairs()
	for _, p := range pairs {
		if p.Name != "ServerCost/rate=1000" {
			t.Errorf("pair %s %s: libuv ran flat out at 2000 req/s", p.Name, p.Unit)
		}
	}
	if len(pairs) != 2 {
		t.Errorf("%d pairs, want libuv's two units at 1000 req/s", len(pairs))
	}
	r.cost.markFlat("loopbench", 1000)
	if pairs := r.cost.costPairs(); len(pairs) != 0 {
		t.Errorf("%d pairs where loopbench itself ran flat out at 1000 req/s and libuv at 2000", len(pairs))
	}
}
