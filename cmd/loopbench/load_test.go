package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"net"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/loopbench/loopbench/internal/harness/load"
	"github.com/loopbench/loopbench/internal/measure/echo"
	"github.com/loopbench/loopbench/internal/measure/loadresult"
	"github.com/loopbench/loopbench/internal/measure/machine"
	"golang.org/x/perf/benchfmt"
)

func TestLoadFormats(t *testing.T) {
	g, err := echo.ServeGonet("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	base := []string{"load", "-addr", g.Addr().String(), "-conns", "2", "-size", "64", "-warmup", "0s", "-duration", "5s", "-requests", "200"}
	var out, errb bytes.Buffer
	if err := run(append(base, "-format", "table"), &out, &errb); err != nil {
		t.Fatal(err, errb.String())
	}
	if answered(out.String()) < 200 || !strings.Contains(out.String(), "round trip") {
		t.Fatalf("table:\n%s", out.String())
	}
	out.Reset()
	if err := run(append(base, "-format", "json"), &out, &errb); err != nil {
		t.Fatal(err)
	}
	var js struct {
		Runs []struct {
			Requests int64 `json:"requests"`
		} `json:"runs"`
	}
	if err := json.Unmarshal(out.Bytes(), &js); err != nil || len(js.Runs) != 1 || js.Runs[0].Requests != 200 {
		t.Fatalf("json: %v\n%s", err, out.String())
	}
	out.Reset()
	if err := run(append(base, "-format", "benchfmt", "-rate", "400"), &out, &errb); err != nil {
		t.Fatal(err)
	}
	results := readBench(t, out.String())
	var res *benchfmt.Result
	if len(results) > 0 {
		res = results[len(results)-1]
	}
	if res == nil || res.GetConfig("cpu") == "" {
		t.Fatalf("benchfmt output:\n%s", out.String())
	}
}

// TestLoadSLO: a single run given -slo fails (exit 1) when its corrected
// p99 (a closed loop's p99) is over it and passes when within, with one
// verdict line each; without -slo, one line says the run was not judged.
func TestLoadSLO(t *testing.T) {
	addr := gonet(t)
	base := []string{"load", "-addr", addr, "-conns", "2", "-size", "64", "-warmup", "0s", "-duration", "5s", "-requests", "100"}
	verdict := regexp.MustCompile(`(?m)^loopbench load: ((corrected )?p99 .*-slo|not judged).*$`)
	for _, c := range []struct {
		more []string
		code int
		line string // the verdict line; "" none
	}{
		{[]string{"-slo", "1ns"}, 1, `^loopbench load: p99 \S+ is over -slo 1ns$`},
		{[]string{"-slo", "1h", "-rate", "200", "-conns", "4"}, 0, `^loopbench load: corrected p99 \S+ within -slo 1h0m0s$`},
		{[]string{"-slo", "1h", "-count", "2"}, 0, `^loopbench load: p99 within -slo 1h0m0s in each of 2 runs \(at most \S+\)$`},
		{nil, 0, `^loopbench load: not judged against an SLO \(give -slo to fail a p99 over it\)$`},
	} {
		out, errs, code := runOut(append(base, c.more...)...)
		lines := verdict.FindAllString(errs, -1) // warnings may come before it on a busy machine
		ok := c.line == "" && len(lines) == 0 || len(lines) == 1 && regexp.MustCompile(c.line).MatchString(lines[0])
		if code != c.code || !ok {
			t.Errorf("%q: exit %d, stderr %q; want %d and %q\n%s", c.more, code, errs, c.code, c.line, out)
		}
	}
}

// TestLoadUDP: load -udp measures a UDP echo server, its runs labelled
// apart from TCP ones; with -tls, or a -size no datagram holds, it is a
// usage error.
func TestLoadUDP(t *testing.T) {
	srv, err := echo.ServeUDPConn("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	addr := srv.Addr().String()
	out, errs, code := runOut("load", "-addr", addr, "-udp", "-conns", "2", "-size", "64", "-warmup", "0s", "-duration", "5s", "-requests", "100")
	if code != 0 || !strings.HasPrefix(out, "udp:"+addr+": ") || answered(out) < 100 {
		t.Fatalf("exit %d\n%s\n%s", code, out, errs)
	}
	for _, bad := range [][]string{{"-tls"}, {"-size", "65508"}} {
		if _, errs, code := runOut(append([]string{"load", "-addr", addr, "-udp"}, bad...)...); code != 2 || strings.Count(errs, "\n") != 1 {
			t.Errorf("load -udp %q: exit %d, %q; want 2 and one line", bad, code, errs)
		}
	}
}

// answered reads the answered requests from a run's table: the line that
// accounts for the window's requests, once; -1 when there is not one.
func answered(table string) int64 {
	m := regexp.MustCompile(`(?m)^the window's [0-9]+ requests? = ([0-9]+) answered \+ `).FindAllStringSubmatch(table, -1)
	if len(m) != 1 {
		return -1
	}
	n, _ := strconv.ParseInt(m[0][1], 10, 64)
	return n
}

// readBench reads benchfmt output: its results, failing the test on a
// syntax error or a unit without its direction.
func readBench(t *testing.T, out string) []*benchfmt.Result {
	t.Helper()
	r := benchfmt.NewReader(strings.NewReader(out), "out")
	units := benchfmt.UnitMetadataMap{}
	var results []*benchfmt.Result
	for r.Scan() {
		switch rec := r.Result().(type) {
		case *benchfmt.SyntaxError:
			t.Fatal(rec)
		case *benchfmt.UnitMetadata:
			units[rec.UnitMetadataKey] = rec
		case *benchfmt.Result:
			for _, v := range rec.Values {
				if units.GetBetter(v.Unit) == 0 {
					t.Errorf("unit %s has no direction", v.Unit)
				}
			}
			results = append(results, rec.Clone())
		}
	}
	return results
}

// TestServe runs serve for a short while in the background and talks to
// the address it prints, in both styles and on gonet.
func TestServe(t *testing.T) {
	var lines []string
	for _, args := range [][]string{
		{"serve", "-duration", "2s"},
		{"serve", "-duration", "2s", "-style", "task", "-variant", "ready=deque/selector=poll"},
		{"serve", "-duration", "2s", "-impl", "gonet"},
	} {
		pr, pw := io.Pipe()
		done := make(chan error, 1)
		go func() {
			err := run(args, pw, io.Discard)
			pw.Close()
			done <- err
		}()
		line, err := bufio.NewReader(pr).ReadString('\n')
		if err != nil || !strings.HasPrefix(line, "listening on ") {
			t.Fatalf("%q printed %q, %v", args, line, err)
		}
		lines = append(lines, strings.Replace(line, strings.Fields(line)[2], "ADDR", 1))
		go io.Copy(io.Discard, pr)
		addr := strings.Fields(line)[2]
		c, err := net.DialTimeout("tcp", addr, 5*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		c.SetDeadline(time.Now().Add(5 * time.Second))
		c.Write([]byte("ping"))
		got := make([]byte, 4)
		if _, err := io.ReadFull(c, got); err != nil || string(got) != "ping" {
			t.Fatalf("%q: echo %q, %v", args, got, err)
		}
		c.Close()
		if err := <-done; err != nil {
			t.Fatalf("%q: %v", args, err)
		}
	}
	golden(t, "serve.golden", strings.Join(lines, ""))
	var errb bytes.Buffer
	if err := run([]string{"serve", "-variant", "ready=list"}, io.Discard, &errb); exitCode(err) != 2 {
		t.Fatalf("serve with an unknown variant: exit %d, %q", exitCode(err), errb.String())
	}
}

// TestLoadReportGolden fixes a report and checks the table, JSON and
// benchfmt layouts against golden files.
func TestLoadReportGolden(t *testing.T) {
	cfg := load.Config{Addr: "127.0.0.1:9000", Label: "loopbench-epoll", Conns: 10, Size: 1024, Duration: 10 * time.Second, Warmup: time.Second, Rate: 50000}
	start := time.Date(2026, 11, 23, 12, 0, 1, 0, time.UTC)
	rep := loadresult.Result{
		Label: cfg.Label, Offered: 50000, Achieved: 49990, Requests: 499900, Scheduled: 500000, Answered: 499990, TimedOut: 2, Unsent: 7, Errors: 3,
		ErrorTexts:  []loadresult.ErrorCount{{Text: "read: i/o timeout", Count: 2}, {Text: "dial: connection refused", Count: 1}},
		Corrected:   loadresult.Latencies{P50: 142_301, P90: 980_420, P99: 1_199_340, P999: 1_424_130, Max: 1_897_470},
		Uncorrected: loadresult.Latencies{P50: 45_071, P90: 105_220, P99: 171_019, P999: 324_115, Max: 926_003},
		PacingLag:   loadresult.Latencies{P50: 12_100, P90: 31_700, P99: 80_210, P999: 140_200, Max: 903_500},
		ReceiveLag:  loadresult.Latencies{P50: 3_100, P90: 7_700, P99: 20_210, P999: 40_200, Max: 303_500},
		Conns:       10, Size: cfg.Size, PacingMethod: load.PacingMethod, UncorrectedMean: 61_000,
		Overflow: 2, Elapsed: 10 * time.Second, Duration: 10 * time.Second,
		WindowStart: start, WindowEnd: start.Add(10 * time.Second), CPU: 4 * time.Second, Wall: 11 * time.Second,
	}
	interrupted := rep
	interrupted.Interrupted, interrupted.Elapsed = true, 2500*time.Millisecond
	interrupted.Spin = 2 * time.Second
	for _, format := range []string{"table", "json", "benchfmt"} {
		var out bytes.Buffer
		if err := writeLoad(&out, io.Discard, loadFlags{cfg: cfg, format: format}, []loadresult.Result{rep, interrupted}); err != nil {
			t.Fatal(err)
		}
		got := out.String()
		if format == "benchfmt" {
			got = withoutMachine(got)
		}
		golden(t, "load_"+format+".golden", got)
	}
	closed := rep
	closed.Offered, closed.Uncorrected, closed.PacingLag, closed.Scheduled = 0, rep.Corrected, loadresult.Latencies{}, rep.Answered
	closed.Errors, closed.TimedOut, closed.Unsent, closed.ErrorTexts = 0, 0, 0, nil
	var out bytes.Buffer
	cfg.Rate = 0
	if err := writeLoad(&out, io.Discard, loadFlags{cfg: cfg, format: "table"}, []loadresult.Result{closed, closed}); err != nil {
		t.Fatal(err)
	}
	golden(t, "load_closed_table.golden", out.String())
}

// withoutMachine is benchfmt output without this machine's configuration
// lines and GOMAXPROCS.
func withoutMachine(s string) string {
	var keep []string
	for _, l := range strings.SplitAfter(s, "\n") {
		if k, _, ok := strings.Cut(l, ": "); ok && slices.ContainsFunc(machine.RunConfig(), func(kv [2]string) bool { return kv[0] == k }) {
			continue
		}
		keep = append(keep, l)
	}
	return regexp.MustCompile(`-[0-9]+ `).ReplaceAllString(strings.Join(keep, ""), "-N ")
}
