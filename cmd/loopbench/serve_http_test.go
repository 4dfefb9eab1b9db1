package main

import (
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

// TestServeHTTP starts serve -proto http on the loop in both styles and
// on gonet, and loads it with load -proto http: every answer is a 200
// with -size bytes, and a plain HTTP client reads the same.
func TestServeHTTP(t *testing.T) {
	for _, args := range [][]string{
		{"-style", "protocol"},
		{"-style", "stream", "-variant", "selector=poll"},
		{"-impl", "gonet"},
	} {
		t.Run(args[1], func(t *testing.T) {
			t.Parallel()
			serveHTTPOnce(t, args)
		})
	}
}

// serveHTTPOnce runs serve -proto http with args for 5 s and loads it.
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
		{[]string{"-proto", "http", "-impl", "uvloop"}, "serves the echo protocol only"},
		{[]string{"-proto", "http", "-work", "1ms"}, "-work applies to the echo protocol"},
		{[]string{"-proto", "smtp"}, `-proto "smtp": want echo or http`},
	} {
		_, errs, code := runOut(append([]string{"serve"}, c.args...)...)
		if code != 2 || !strings.Contains(errs, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", c.args, code, errs, c.want)
		}
	}
}
