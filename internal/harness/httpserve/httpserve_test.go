package httpserve

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/loopbench/loopbench"
)

// serve starts the style's server answering size bytes on a loop of its
// own goroutine, and returns its address; the loop ends with the test.
func serve(t *testing.T, style string, size int) string {
	t.Helper()
	if style == "gonet" {
		g, err := ServeGonet("tcp", "127.0.0.1:0", size)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { g.Close() })
		return g.Addr().String()
	}
	l, err := loopbench.New(loopbench.Config{})
	if err != nil {
		t.Fatal(err)
	}
	addr, err := Listen(l, style, size, "tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- l.RunForever() }()
	t.Cleanup(func() {
		l.CallSoonThreadsafe(l.Stop)
		if err := <-done; err != nil {
			t.Error(err)
		}
		l.Close()
	})
	return addr.String()
}

func TestKeepAliveClient(t *testing.T) {
	for _, style := range []string{"protocol", "stream", "gonet"} {
		t.Run(style, func(t *testing.T) {
			addr := serve(t, style, 1000)
			tr := &http.Transport{MaxConnsPerHost: 1}
			defer tr.CloseIdleConnections()
			c := &http.Client{Transport: tr, Timeout: time.Minute}
			for i, method := range []string{"GET", "HEAD", "POST", "GET"} {
				req, _ := http.NewRequest(method, "http://"+addr+"/x", strings.NewReader("payload"))
				resp, err := c.Do(req)
				if err != nil {
					t.Fatalf("request %d: %v", i, err)
				}
				body, err := io.ReadAll(resp.Body)
				resp.Body.Close()
				want := 1000
				if method == "HEAD" {
					want = 0
				}
				if err != nil || resp.StatusCode != 200 || len(body) != want || resp.ContentLength != 1000 {
					t.Fatalf("request %d (%s): status %d, %d bytes, length %d, %v", i, method, resp.StatusCode, len(body), resp.ContentLength, err)
				}
			}
		})
	}
}

// exchange writes raw to a new connection to addr and reads until the
// server closes it or wait passes.
func exchange(t *testing.T, addr, raw string) string {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(time.Minute))
	if _, err := io.WriteString(c, raw); err != nil {
		t.Fatal(err)
	}
	out, err := io.ReadAll(bufio.NewReader(c))
	if err != nil {
		t.Fatalf("reading the answers: %v (after %q)", err, out)
	}
	return string(out)
}

func TestPipelinedAndClose(t *testing.T) {
	for _, style := range []string{"protocol", "stream"} {
		t.Run(style, func(t *testing.T) {
			addr := serve(t, style, 3)
			// Three pipelined requests in one write, the last asking to close:
			// three answers in order, then the server closes.
			out := exchange(t, addr, "GET / HTTP/1.1\r\n\r\nHEAD / HTTP/1.1\r\n\r\nGET / HTTP/1.1\r\nConnection: close\r\n\r\n")
			full := "HTTP/1.1 200 OK\r\nContent-Type: application/octet-stream\r\nContent-Length: 3\r\n\r\n"
			want := full + "abc" + full + full[:len(full)-2] + "Connection: close\r\n\r\nabc"
			if out != want {
				t.Errorf("got %q\nwant %q", out, want)
			}
			// HTTP/1.0 without keep-alive: one answer, then the close.
			if out := exchange(t, addr, "GET / HTTP/1.0\r\n\r\n"); strings.Count(out, "HTTP/1.1 200") != 1 || !strings.Contains(out, "Connection: close") {
				t.Errorf("HTTP/1.0: got %q", out)
			}
			// A request that does not parse: 400, then the close.
			if out := exchange(t, addr, "BREW /pot HTCPCP/1.0\r\n\r\n"); out != "HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\nConnection: close\r\n\r\n" {
				t.Errorf("bad request: got %q", out)
			}
		})
	}
}

func TestListenUnknownStyle(t *testing.T) {
	l, err := loopbench.New(loopbench.Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if _, err := Listen(l, "task", 1, "tcp", "127.0.0.1:0"); err == nil || !strings.Contains(err.Error(), `unknown style "task"`) {
		t.Errorf("Listen with style task: %v", err)
	}
}
