package main

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/loopbench/loopbench/peers"
)

// TestServeHTTP starts serve -proto http on the loop in both styles, on
// gonet and on the peers' HTTP servers (asyncio and uvloop with
// httptools, libuv; each skipped with one line where it cannot run),
// and loads it with load -proto http: every answer is a 200 with -size
// bytes, and a plain HTTP client reads the same.
func TestServeHTTP(t *testing.T) {
	cases := [][]string{
		{"-style", "protocol"},
		{"-style", "stream", "-variant", "selector=poll"},
		{"-impl", "gonet"},
	}
	for _, name := range peers.HTTPServers {
		cases = append(cases, []string{"-impl", name, "-duration", "15s"}) // an interpreter's start-up, on a loaded machine
	}
	for _, args := range cases {
		t.Run(args[1], func(t *testing.T) {
			if args[0] == "-impl" && args[1] != "gonet" {
				skipUnlessServesHTTP(t, args[1])
			}
			t.Parallel()
			serveHTTPOnce(t, args)
		})
	}
}

// skipUnlessServesHTTP skips the test, in one line naming what is
// missing, where the peer's HTTP server cannot run.
func skipUnlessServesHTTP(t *testing.T, name string) {
	t.Helper()
	ctx := context.Background()
	ready, skipped := peers.Find(ctx, []string{name}, peers.CacheDir())
	if len(ready) == 0 {
		t.Skipf("%s", skipped[0])
	}
	if err := ready[0].ServesHTTP(ctx); err != nil {
		t.Skipf("%s: %v", name, err)
	}
}

// serveHTTPOnce runs serve -proto http with args (for 5 s unless they
// say otherwise) and loads it.
func serveHTTPOnce(t *testing.T, args []string) {
	addr, _ := startServe(t, append([]string{"-proto", "http", "-size", "300", "-duration", "5s"}, args...)...)
	resp, err := (&http.Client{Timeout: time.Minute}).Get("http://" + addr + "/")
	if err != nil {
		t.Fatalf("%v: %v", args, err)
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil || resp.StatusCode != 200 || len(body) != 300 {
		t.Errorf("%v: status %d, %d bytes, %v; want 200 and 300 bytes", args, resp.StatusCode, len(body), err)
	}
	out, errs, code := runOut("load", "-url", "http://"+addr+"/", "-conns", "2", "-warmup", "0s", "-duration", "20s", "-requests", "40")
	if code != 0 || !strings.Contains(out, " + 0 unsent, 0 errors") {
		t.Errorf("%v: load exit %d\nstderr %s\nstdout %s", args, code, errs, out)
	}
}

func TestServeHTTPUsage(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-proto", "http", "-style", "task"}, "-style task: want protocol or stream"},
		{[]string{"-proto", "http", "-impl", "uvloop", "-tls"}, "-tls applies to the loop's servers"},
		{[]string{"-proto", "http", "-work", "1ms"}, "-work applies to the echo protocol"},
		{[]string{"-proto", "smtp"}, `-proto "smtp": want echo or http`},
	} {
		_, errs, code := runOut(append([]string{"serve"}, c.args...)...)
		if code != 2 || !strings.Contains(errs, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", c.args, code, errs, c.want)
		}
	}
}
