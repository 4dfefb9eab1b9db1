package main

import (
	"bytes"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/loopbench/loopbench/internal/harness/loadresult"
	"github.com/loopbench/loopbench/internal/harness/tlscert"
)

// TestWarnCPUBoundPerLoop: the CPU-bound warning holds a run against the
// CPUs its loops can use: one loop at 0.94 cores is CPU-bound however
// many CPUs the machine has; two loops at 0.94 cores are not. The
// figures are injected.
func TestWarnCPUBoundPerLoop(t *testing.T) {
	for _, c := range []struct {
		loops int
		want  string // "" no warning
	}{
		{1, "loopbench load: warning: the generator kept 0.94 cores busy of the 1 CPU its 1 loop can use (16 usable): a client this busy measures itself; add generators on other hosts (loopbench merge)\n"},
		{2, ""},
	} {
		rep := loadresult.Result{CPUs: 16, Loops: c.loops, Conns: 4, Wall: time.Second, CPU: 940 * time.Millisecond}
		var b bytes.Buffer
		warnLoad(&b, rep, false)
		if b.String() != c.want {
			t.Errorf("%d loops: %q, want %q", c.loops, b.String(), c.want)
		}
	}
}

// behindRun is an injected run that fell far behind: 1 connection
// offered 50000 req/s, kept busy by answers of 52 µs, achieving 19230.
func behindRun() loadresult.Result {
	h := loadresult.NewHistogram()
	h.RecordValues(52_000, 100)
	r := loadresult.Result{Label: "x", Addr: "198.18.0.1:9000", Conns: 1, Size: 64, CPUs: 2, Loops: 1, Offered: 50000, Achieved: 19230,
		Requests: 38459, Scheduled: 100000, Answered: 32899, Unsent: 67101, Elapsed: 2 * time.Second, Duration: 2 * time.Second,
		Wall: 2 * time.Second, CPU: time.Second, CorrectedHist: h, UncorrectedHist: h, PacingLagHist: loadresult.NewHistogram()}
	r.Summarize()
	return r
}

// TestLoadVerdictFellBehind: a run below 90 % of its offered rate fails
// with one line giving the achieved rate, the unsent requests and what
// limited it; at 95 %, or in closed loop, it passes. The table counts the
// window's requests once. The figures are injected.
func TestLoadVerdictFellBehind(t *testing.T) {
	f := loadFlags{count: 1, maxErr: 0.01}
	r := behindRun()
	err := loadVerdict(f, []loadresult.Result{r})
	want := "fell behind: 19230 of 50000 req/s offered achieved (38%, below 90%), 67101 of the window's 100000 requests unsent: the connections limited it (1 connection, busy 1.00 on average, one request outstanding on each); raise -conns"
	if err == nil || err.Error() != want {
		t.Fatalf("%v\nwant %s", err, want)
	}
	var b bytes.Buffer
	warnLoad(&b, r, false)
	if b.Len() != 0 {
		t.Errorf("warnings beside the failure that names the cause: %q", b.String())
	}
	r.WriteText(&b)
	if n := strings.Count(b.String(), "requests"); n != 1 || !strings.Contains(b.String(), "the window's 100000 requests = 32899 answered + 0 timed out + 0 failed otherwise + 67101 unsent, 0 errors\n") {
		t.Errorf("%d counts of requests in the table:\n%s", n, b.String())
	}
	r.Achieved = 0.95 * r.Offered
	if err := loadVerdict(f, []loadresult.Result{r}); err != nil {
		t.Errorf("at 95 %% of the offered rate: %v", err)
	}
	r.Offered, r.Achieved = 0, 100
	if err := loadVerdict(f, []loadresult.Result{r}); err != nil {
		t.Errorf("closed loop: %v", err)
	}
}

// slowEcho serves an echo of 64-byte requests on loopback, each answered
// 10 ms after it was read, one at a time on a connection: one connection
// carries 100 req/s at most, whatever the machine's load.
func slowEcho(t *testing.T) string {
	return serveLoopback(t, func(c net.Conn) {
		go func() {
			defer c.Close()
			buf := make([]byte, 64)
			for {
				if _, err := io.ReadFull(c, buf); err != nil {
					return
				}
				time.Sleep(10 * time.Millisecond)
				if _, err := c.Write(buf); err != nil {
					return
				}
			}
		}()
	})
}

// TestLoadFellBehindEndToEnd: one connection offered 1000 req/s of a
// server that answers 100 at most fails (exit 1) with one line naming
// the connections, and its table counts the requests once.
func TestLoadFellBehindEndToEnd(t *testing.T) {
	out, errs, code := runOut("load", "-addr", slowEcho(t), "-conns", "1", "-size", "64", "-rate", "1000", "-warmup", "0s", "-duration", "1s")
	line := regexp.MustCompile(`(?m)^loopbench load: fell behind: [0-9]+ of 1000 req/s offered achieved \([0-9]+%, below 90%\), [0-9]+ of the window's [0-9]+ requests unsent: the connections limited it .*; raise -conns$`)
	if code != 1 || len(line.FindAllString(errs, -1)) != 1 || strings.Contains(errs, "warning: fell behind") {
		t.Fatalf("exit %d\nstderr %s\nstdout %s", code, errs, out)
	}
	if strings.Count(out, "requests") != 1 || answered(out) < 1 {
		t.Fatalf("the requests counted more than once, or not at all:\n%s", out)
	}
}

// TestLoadTLSUnverified: against a TLS server whose certificate no CA
// given signed, load never says the certificate was verified: it fails
// (exit 1) with one line naming the failure and the flags that accept
// the certificate.
func TestLoadTLSUnverified(t *testing.T) {
	_, _, files, err := tlscert.Throwaway(t.TempDir(), "server", "127.0.0.1")
	if err != nil {
		t.Fatal(err)
	}
	addr, _ := startServe(t, "-tls", "-cert", files.Cert, "-key", files.Key, "-duration", "2s")
	out, errs, code := runOut("load", "-addr", addr, "-tls", "-conns", "2", "-size", "64", "-warmup", "0s", "-duration", "1s")
	want := regexp.MustCompile(`^loopbench load: tls: the handshake with 127\.0\.0\.1:[0-9]+ failed: the server's certificate was not verified \(x509: .*\): trust its CA with -ca FILE, or skip verification with -insecure\n$`)
	if code != 1 || strings.Contains(out+errs, "verified for") || !want.MatchString(errs) {
		t.Fatalf("exit %d\nstderr %q\nstdout %q", code, errs, out)
	}
}

// TestLoadNotEcho: pointed at an HTTP server, which never answers load's
// requests, or at one that answers them with an HTTP response, load
// fails with one line saying it speaks an echo protocol that the server
// does not.
func TestLoadNotEcho(t *testing.T) {
	web := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { io.WriteString(w, "hello\n") }))
	defer web.Close()
	answers := serveLoopback(t, func(c net.Conn) {
		go func() {
			defer c.Close()
			buf := make([]byte, 64)
			for {
				if _, err := io.ReadFull(c, buf); err != nil {
					return
				}
				if _, err := io.WriteString(c, "HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n"); err != nil {
					return
				}
			}
		}()
	})
	for _, c := range []struct{ addr, why string }{
		{strings.TrimPrefix(web.URL, "http://"), "no answer came from "},
		{answers, " answered with bytes that are not the echo of the request: "},
	} {
		out, errs, code := runOut("load", "-addr", c.addr, "-conns", "2", "-size", "64", "-warmup", "0s", "-duration", "300ms", "-timeout", "200ms")
		if code != 1 || strings.Count(errs, "\n") != 1 || !strings.Contains(errs, c.why) || !strings.Contains(errs, "load speaks loopbench's echo protocol (the server sends each request's bytes back") {
			t.Errorf("%s: exit %d\nstderr %s\nstdout %s", c.addr, code, errs, out)
		}
	}
}

// TestLoadPlurals: load's, sweep's and merge's lines count one of a
// thing in the singular.
func TestLoadPlurals(t *testing.T) {
	r := behindRun()
	r.Scheduled, r.Answered, r.Unsent, r.Errors, r.TimedOut = 1, 0, 0, 1, 1
	r.ErrorTexts = []loadresult.ErrorCount{{Text: "read: i/o timeout", Count: 1}}
	var b bytes.Buffer
	r.WriteText(&b)
	warnLoad(&b, r, false)
	b.WriteString(errorsWhy(r) + "\n")
	m, _ := loadresult.MergeGenerators([]loadresult.Result{r})
	writeMergedTable(&b, m)
	r.CPU = r.Wall
	b.WriteString(r.CPUBusy() + "\n")
	plural := regexp.MustCompile(`\b1 (connections|CPUs|generators|steps|requests|errors|loops|runs)\b`)
	if bad := plural.FindAllString(b.String(), -1); len(bad) > 0 || !strings.Contains(b.String(), "1 generator: ") {
		t.Errorf("%q in:\n%s", bad, b.String())
	}
}
