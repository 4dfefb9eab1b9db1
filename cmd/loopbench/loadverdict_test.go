package main

import (
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/loopbench/loopbench/internal/measure/tlscert"
)

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
		// A loaded machine may add the generator's warning that it was
		// busy; the failure itself is one line.
		lines := slices.DeleteFunc(strings.SplitAfter(errs, "\n"), func(l string) bool {
			return l == "" || strings.HasPrefix(l, "loopbench load: warning: ")
		})
		if code != 1 || len(lines) != 1 || !strings.Contains(errs, c.why) || !strings.Contains(errs, "load speaks loopbench's echo protocol (the server sends each request's bytes back") {
			t.Errorf("%s: exit %d\nstderr %s\nstdout %s", c.addr, code, errs, out)
		}
	}
}
