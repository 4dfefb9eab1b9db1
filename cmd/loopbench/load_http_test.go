package main

import (
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
)

// TestLoadHTTP loads an HTTP server through -url and through -proto
// http: every request the server answered is an answered request, and a
// status outside 2xx is an error named by its code.
func TestLoadHTTP(t *testing.T) {
	var served atomic.Int64
	web := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/missing" {
			http.NotFound(w, r)
			return
		}
		served.Add(1)
		io.WriteString(w, strings.Repeat("x", 1024))
	}))
	defer web.Close()
	addr := strings.TrimPrefix(web.URL, "http://")
	for _, args := range [][]string{
		{"-url", web.URL + "/index.html"},
		{"-proto", "http", "-addr", addr, "-method", "POST", "-body", "hello", "-header", "X-Test: 1"},
	} {
		served.Store(0)
		argv := append([]string{"load", "-conns", "2", "-warmup", "0s", "-duration", "20s", "-requests", "50"}, args...)
		out, errs, code := runOut(argv...)
		m := answeredRe.FindStringSubmatch(out)
		if code != 0 || m == nil || !strings.Contains(out, " + 0 unsent, 0 errors") {
			t.Fatalf("%v: exit %d\nstderr %s\nstdout %s", args, code, errs, out)
		}
		if n, _ := strconv.ParseInt(m[1], 10, 64); n < 50 || n != served.Load() {
			t.Errorf("%v: %d answered, the server answered %d; want the same, at least 50", args, n, served.Load())
		}
	}
	out, errs, code := runOut("load", "-url", web.URL+"/missing", "-conns", "1", "-warmup", "0s", "-duration", "300ms")
	if code != 1 || !strings.Contains(out+errs, "HTTP status 404") || strings.Contains(errs, "echo protocol") {
		t.Errorf("404s: exit %d\nstderr %s\nstdout %s", code, errs, out)
	}
}

var answeredRe = regexp.MustCompile(`requests = (\d+) answered`)

func TestLoadHTTPUsage(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-addr", "127.0.0.1:1", "-method", "POST"}, "-method needs -proto http"},
		{[]string{"-addr", "127.0.0.1:1", "-proto", "gopher"}, `-proto "gopher": want echo or http`},
		{[]string{"-addr", "127.0.0.1:1", "-proto", "http", "-size", "64"}, "-size is the echo protocol's"},
		{[]string{"-addr", "127.0.0.1:1", "-url", "http://127.0.0.1:2/"}, "leave out -addr and -path"},
		{[]string{"-url", "ftp://127.0.0.1/"}, `-url "ftp://127.0.0.1/": want http://`},
		{[]string{"-url", "http://127.0.0.1:1/", "-udp"}, "-proto http goes over TCP"},
		{[]string{"-url", "http://127.0.0.1:1/", "-header", "no colon"}, `header "no colon": want Name: value`},
		{[]string{"-url", "http://127.0.0.1:1/", "-body", "a", "-body-file", "b"}, "-body and -body-file: give one"},
	} {
		_, errs, code := runOut(append([]string{"load"}, c.args...)...)
		if code != 2 || !strings.Contains(errs, c.want) || strings.Count(errs, "\n") != 1 {
			t.Errorf("%v: exit %d, stderr %q; want 2 and one line with %q", c.args, code, errs, c.want)
		}
	}
}

// TestLoadHgrm: -hgrm writes the corrected histogram, which reads back
// with as many latencies as requests answered; a path that cannot be
// written is refused before measuring.
func TestLoadHgrm(t *testing.T) {
	web := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { io.WriteString(w, "ok") }))
	defer web.Close()
	path := filepath.Join(t.TempDir(), "run.hgrm")
	out, errs, code := runOut("load", "-url", web.URL, "-conns", "1", "-warmup", "0s", "-duration", "20s", "-requests", "30", "-hgrm", path)
	m := answeredRe.FindStringSubmatch(out)
	if code != 0 || m == nil {
		t.Fatalf("exit %d\nstderr %s\nstdout %s", code, errs, out)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	total := regexp.MustCompile(`Total count\s*=\s*(\d+)\]`).FindStringSubmatch(string(data))
	if total == nil || total[1] != m[1] || !strings.HasPrefix(string(data), " Value\tPercentile") {
		t.Errorf(".hgrm total %v, %s answered:\n%s", total, m[1], data)
	}
	_, errs, code = runOut("load", "-url", web.URL, "-hgrm", filepath.Join(t.TempDir(), "no", "such", "dir", "x.hgrm"))
	if code != 2 || !strings.Contains(errs, "-hgrm:") {
		t.Errorf("unwritable -hgrm: exit %d, %q", code, errs)
	}
}

// TestLoadHTTPS loads serve -proto http -tls through an https URL: the
// requests go over TLS and every one is answered.
func TestLoadHTTPS(t *testing.T) {
	addr, _ := startServe(t, "-proto", "http", "-tls", "-size", "100", "-duration", "3s")
	out, errs, code := runOut("load", "-url", "https://"+addr+"/", "-insecure", "-conns", "2", "-warmup", "0s", "-duration", "20s", "-requests", "40")
	if code != 0 || !strings.Contains(out, " + 0 unsent, 0 errors") || !strings.Contains(errs+out, "tls") {
		t.Fatalf("load exit %d\nstderr %s\nstdout %s", code, errs, out)
	}
}
