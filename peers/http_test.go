package peers

import (
	"bufio"
	"context"
	"io"
	"net"
	"net/http"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// TestHTTPServers: each peer's HTTP server (skipped in one line where it
// cannot run here) answers requests pipelined in one write and split
// anywhere across writes, in order: GET, a POST whose Content-Length
// body is skipped, HEAD (no body), and a GET with Connection: close,
// after whose answer the server closes the connection.
func TestHTTPServers(t *testing.T) {
	ctx := context.Background()
	ready, skipped := Find(ctx, HTTPServers, CacheDir())
	for _, s := range skipped {
		t.Logf("skipped %s", s)
	}
	for _, p := range ready {
		t.Run(p.Name, func(t *testing.T) {
			if err := p.ServesHTTP(ctx); err != nil {
				t.Skipf("%s: %v", p.Name, err)
			}
			addr := startHTTPServer(t, p, 7)
			requests := "GET / HTTP/1.1\r\nHost: x\r\n\r\n" +
				"POST /p HTTP/1.1\r\nHost: x\r\nContent-Length: 11\r\n\r\nhello world" +
				"HEAD / HTTP/1.1\r\nHost: x\r\n\r\n" +
				"GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
			for _, split := range [][]int{{len(requests)}, {3, 20, 41, 60, 75, 80, 95, len(requests)}} {
				c, err := net.Dial("tcp", addr)
				if err != nil {
					t.Fatal(err)
				}
				go func() {
					from := 0
					for _, to := range split {
						if _, err := c.Write([]byte(requests[from:to])); err != nil {
							return
						}
						from = to
						time.Sleep(time.Millisecond) // parts apart: each its own read, most often
					}
				}()
				readAnswers(t, c, split)
			}
		})
	}
}

// readAnswers reads the four answers of TestHTTPServers from c, and then
// the end of the connection.
func readAnswers(t *testing.T, c net.Conn, split []int) {
	t.Helper()
	defer c.Close()
	c.SetDeadline(time.Now().Add(time.Minute))
	br := bufio.NewReader(c)
	for i, method := range []string{"GET", "POST", "HEAD", "GET"} {
		resp, err := http.ReadResponse(br, &http.Request{Method: method})
		if err != nil {
			t.Fatalf("split %v: answer %d: %v", split, i+1, err)
		}
		body, err := io.ReadAll(resp.Body)
		want := "abcdefg"
		if method == "HEAD" {
			want = ""
		}
		if err != nil || resp.StatusCode != 200 || string(body) != want || resp.ContentLength != 7 {
			t.Fatalf("split %v: answer %d to %s: %d, Content-Length %d, body %q, %v; want 200, 7, %q", split, i+1, method, resp.StatusCode, resp.ContentLength, body, err, want)
		}
		if close := i == 3; resp.Close != close {
			t.Errorf("split %v: answer %d: close %v, want %v", split, i+1, resp.Close, close)
		}
	}
	if rest, err := io.ReadAll(br); err != nil || len(rest) > 0 {
		t.Errorf("split %v: after the last answer: %q, %v; want the connection closed", split, rest, err)
	}
}

// startHTTPServer starts p's HTTP server on a free loopback port,
// answering size bytes, and returns its address; the test's cleanup ends
// it and waits for it.
func startHTTPServer(t *testing.T, p *Peer, size int) string {
	t.Helper()
	argv := p.HTTPServer("127.0.0.1", "0", size)
	cmd := exec.Command(argv[0], argv[1:]...)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
	})
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil || !strings.HasPrefix(line, "listening on ") {
		t.Fatalf("%v printed %q, %v", argv, line, err)
	}
	go io.Copy(io.Discard, out)
	return strings.Fields(line)[2]
}
