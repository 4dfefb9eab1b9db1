package peers

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/loopbench/loopbench/internal/measure/echo"
	"golang.org/x/perf/benchfmt"
)

// floor builds the floor client into a temporary cache, or skips the test
// with the reason it cannot (no C compiler, not Linux).
func floor(t *testing.T) *Peer {
	t.Helper()
	ready, skipped := Find(context.Background(), []string{Floor}, t.TempDir())
	if len(skipped) > 0 {
		t.Skip(skipped[0].String())
	}
	return ready[0]
}

// values reads res's values by unit.
func values(t *testing.T, res *benchfmt.Result, units ...string) map[string]float64 {
	t.Helper()
	m := map[string]float64{}
	for _, v := range res.Values {
		if v.OrigUnit == "" { // benchfmt keeps the original only when it tidied the unit
			v.OrigUnit, v.OrigValue = v.Unit, v.Value
		}
		m[v.OrigUnit] = v.OrigValue
	}
	for _, u := range units {
		if _, ok := m[u]; !ok {
			t.Fatalf("%s: no %s in %v", res.Name, u, m)
		}
	}
	return m
}

var floorUnits = []string{"requests", "answered", "errors", "cpu-ns/req", "p50-ns", "p99-ns", "max-ns", "lag-p99-ns"}

// TestFloorClient runs the floor client briefly against an echo server in
// this process, closed loop and open loop, and checks its counts: every
// request answered, none failed, and in the open loop exactly the requests
// its schedule fixed in advance (rate × duration), sent however late.
func TestFloorClient(t *testing.T) {
	p := floor(t)
	srv, err := echo.ServeGonet("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	addr := srv.Addr().String()
	ctx := context.Background()

	res, err := p.EchoClient(ctx, FloorLoad{Addr: addr, Size: 64, Conns: 3, Duration: 200 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	v := values(t, res, floorUnits...)
	if v["requests"] < 3 || v["answered"] != v["requests"] || v["errors"] != 0 || v["cpu-ns/req"] <= 0 || v["p50-ns"] > v["max-ns"] {
		t.Errorf("closed loop: %v", v)
	}
	if string(res.Name) != "EchoClient/impl=cfloor/mode=closed/size=64/conns=3/slack=1ns" {
		t.Errorf("closed loop: name %q", res.Name)
	}

	// The second load pipelines many requests on its one connection (its
	// ring of intended times grows); the count is the schedule's all the same.
	for _, l := range []FloorLoad{
		{Addr: addr, Size: 100, Conns: 2, Rate: 2000, Duration: 300 * time.Millisecond},
		{Addr: addr, Size: 1000, Conns: 1, Rate: 20000, Duration: 100 * time.Millisecond},
	} {
		res, err = p.EchoClient(ctx, l)
		if err != nil {
			t.Fatal(err)
		}
		v = values(t, res, floorUnits...)
		want := l.Rate * l.Duration.Seconds()
		if v["requests"] != want || v["answered"] != want || v["errors"] != 0 {
			t.Errorf("open loop at %g req/s for %v: %v; want %g requests, all answered", l.Rate, l.Duration, v, want)
		}
	}
}

// TestFloorClientSlack: the client's timer slack is the generator's,
// 1 ns, unless the load gives another, and the line names the slack the
// kernel reports in force while it ran.
func TestFloorClientSlack(t *testing.T) {
	p := floor(t)
	srv, err := echo.ServeGonet("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	for _, c := range []struct {
		slack time.Duration
		want  string
	}{{0, "/slack=1ns"}, {50 * time.Microsecond, "/slack=50000ns"}, {3 * time.Nanosecond, "/slack=3ns"}} {
		l := FloorLoad{Addr: srv.Addr().String(), Size: 16, Conns: 1, Rate: 1000, Duration: 5 * time.Millisecond, Slack: c.slack}
		args, err := l.Args()
		if err != nil {
			t.Fatal(err)
		}
		res, err := p.EchoClient(context.Background(), l)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasSuffix(string(res.Name), c.want) {
			t.Errorf("slack %v (argument %s): name %q, want it to end in %s", c.slack, args[len(args)-1], res.Name, c.want)
		}
	}
}

// TestFloorClientBadLoad: a load the client cannot run is refused before
// it starts, naming what is wrong.
func TestFloorClientBadLoad(t *testing.T) {
	for _, l := range []FloorLoad{
		{Addr: "nohost", Size: 1, Conns: 1, Duration: time.Second},
		{Addr: "127.0.0.1:1", Size: 0, Conns: 1, Duration: time.Second},
		{Addr: "127.0.0.1:1", Size: 1, Conns: 1, Rate: -1, Duration: time.Second},
		{Addr: "127.0.0.1:1", Size: 1, Conns: 1, Duration: time.Second, Slack: -1},
	} {
		if _, err := l.Args(); err == nil {
			t.Errorf("%+v: no error", l)
		}
	}
}

// TestFloorSleeper: the sleeper makes the waits it is asked for and
// reports their lateness under bench's Wakeup name.
func TestFloorSleeper(t *testing.T) {
	p := floor(t)
	res, err := p.Sleep(context.Background(), 200*time.Microsecond, 20)
	if err != nil {
		t.Fatal(err)
	}
	v := values(t, res, "late-p50-ns", "late-p99-ns", "late-max-ns")
	if res.Iters != 20 || string(res.Name) != "Wakeup/impl=cfloor/wait=200us" || v["late-p50-ns"] > v["late-max-ns"] {
		t.Errorf("%s %d: %v", res.Name, res.Iters, v)
	}
}

// TestFloorSpinner: the spinner makes the busy waits it is asked for,
// each at least its wait long, and reports their lateness under its own
// Wakeup name.
func TestFloorSpinner(t *testing.T) {
	p := floor(t)
	res, err := p.Spin(context.Background(), 200*time.Microsecond, 20)
	if err != nil {
		t.Fatal(err)
	}
	v := values(t, res, "ns/op", "late-p50-ns", "late-p99-ns", "late-max-ns")
	if res.Iters != 20 || string(res.Name) != "Wakeup/impl=cfloor-spin/wait=200us" || v["late-p50-ns"] > v["late-max-ns"] || v["ns/op"] < 200e3 {
		t.Errorf("%s %d: %v", res.Name, res.Iters, v)
	}
	if _, err := p.Spin(context.Background(), 0, 20); err == nil {
		t.Error("a zero wait: no error")
	}
}
