package load

import (
	"context"
	"net"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/loopbench/loopbench/internal/harness/httpwire"
)

// httpServer answers each request it parses with answer(i), i counting
// the requests over all connections from 1, and closes the connection
// after an answer when closing says so. It counts the requests it read
// and the connections it accepted.
func httpServer(t *testing.T, closing bool, answer func(i int64) string) (addr string, read, accepted *atomic.Int64) {
	read, accepted = new(atomic.Int64), new(atomic.Int64)
	addr = faultServer(t, func(c net.Conn) {
		accepted.Add(1)
		var q httpwire.Request
		buf := make([]byte, 4096)
		for {
			n, err := c.Read(buf)
			if err != nil {
				return
			}
			for data := buf[:n]; len(data) > 0; {
				used, done, err := q.Feed(data)
				data = data[used:]
				if err != nil {
					return
				}
				if !done {
					break
				}
				q.Reset()
				if _, err := c.Write([]byte(answer(read.Add(1)))); err != nil || closing {
					return
				}
			}
		}
	})
	return addr, read, accepted
}

func httpConfig(t *testing.T, addr string, conns int, requests int64) Config {
	req, err := httpwire.NewRequest("GET", addr, "/", nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	return Config{Addr: addr, Conns: conns, Duration: 20 * time.Second, Timeout: 2 * time.Second, Requests: requests, HTTP: &HTTP{Request: req}}
}

const okAnswer = "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello"

// TestHTTPAccounting: every request the server read is scheduled, and
// scheduled = answered + unsent + errors, over keep-alive connections
// that each dialled once.
func TestHTTPAccounting(t *testing.T) {
	addr, read, accepted := httpServer(t, false, func(int64) string { return okAnswer })
	rep := runBounded(t, context.Background(), httpConfig(t, addr, 4, 300))
	if rep.Requests != 300 || rep.Errors != 0 {
		t.Fatalf("%d requests, %d errors %v; want 300 and none", rep.Requests, rep.Errors, rep.ErrorTexts)
	}
	if n := read.Load(); rep.Scheduled != n {
		t.Errorf("%d scheduled, the server read %d requests", rep.Scheduled, n)
	}
	if sum := rep.Answered + rep.Unsent + rep.Errors; rep.Scheduled != sum {
		t.Errorf("%d scheduled, %d answered + %d unsent + %d errors = %d", rep.Scheduled, rep.Answered, rep.Unsent, rep.Errors, sum)
	}
	if n := accepted.Load(); n != 4 {
		t.Errorf("%d connections accepted, want 4 (keep-alive)", n)
	}
	if rep.Size != len(httpConfig(t, addr, 1, 1).HTTP.Request) {
		t.Errorf("size %d, want the request's length", rep.Size)
	}
}

// TestHTTPStatusErrors: a status outside 2xx is an error named by its
// code, on a connection that stays open; the identity still holds.
func TestHTTPStatusErrors(t *testing.T) {
	addr, read, accepted := httpServer(t, false, func(i int64) string {
		if i%3 == 0 {
			return "HTTP/1.1 503 Service Unavailable\r\nContent-Length: 0\r\n\r\n"
		}
		return okAnswer
	})
	rep := runBounded(t, context.Background(), httpConfig(t, addr, 1, 100))
	if rep.Errors == 0 || len(rep.ErrorTexts) != 1 || rep.ErrorTexts[0].Text != "HTTP status 503" {
		t.Fatalf("errors %d %v, want some, all HTTP status 503", rep.Errors, rep.ErrorTexts)
	}
	if sum := rep.Answered + rep.Unsent + rep.Errors; rep.Scheduled != sum || rep.Scheduled != read.Load() {
		t.Errorf("%d scheduled (server read %d), %d answered + %d unsent + %d errors = %d", rep.Scheduled, read.Load(), rep.Answered, rep.Unsent, rep.Errors, sum)
	}
	if n := accepted.Load(); n != 1 {
		t.Errorf("%d connections accepted, want 1: a 503 keeps the connection", n)
	}
}

// TestHTTPClose: responses that close the connection, framed by
// Content-Length or by the close itself, are answers; each next request
// dials again.
func TestHTTPClose(t *testing.T) {
	for _, answer := range []string{
		"HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 2\r\n\r\nok",
		"HTTP/1.1 200 OK\r\nConnection: close\r\n\r\nto the end",
		"HTTP/1.0 200 OK\r\nContent-Length: 2\r\n\r\nok",
	} {
		addr, _, accepted := httpServer(t, true, func(int64) string { return answer })
		rep := runBounded(t, context.Background(), httpConfig(t, addr, 1, 5))
		if rep.Requests != 5 || rep.Errors != 0 {
			t.Errorf("%q: %d requests, %d errors %v; want 5 and none", answer, rep.Requests, rep.Errors, rep.ErrorTexts)
		}
		if n := accepted.Load(); n < 5 {
			t.Errorf("%q: %d connections accepted, want one per request", answer, n)
		}
	}
}

// TestHTTPMalformed: responses that do not parse, or end inside a
// message, are counted errors, and the run ends on time (runBounded).
func TestHTTPMalformed(t *testing.T) {
	for _, tc := range []struct{ answer, want string }{
		{"NOT HTTP AT ALL\r\n", httpwire.ErrStatusLine.Error()},
		{"HTTP/1.1 200 OK\r\nContent-Length: x\r\n\r\n", httpwire.ErrLength.Error()},
		{"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhe", "unexpected EOF"},
		{"HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nshort", "unexpected EOF"},
		{"HTTP/1.1 2", "unexpected EOF"},
	} {
		addr, _, _ := httpServer(t, true, func(int64) string { return tc.answer })
		cfg := httpConfig(t, addr, 1, 0)
		cfg.Duration, cfg.Timeout = 300*time.Millisecond, 200*time.Millisecond
		rep := runBounded(t, context.Background(), cfg)
		if rep.Errors == 0 || rep.Answered != 0 {
			t.Errorf("%q: %d errors, %d answered; want errors only", tc.answer, rep.Errors, rep.Answered)
			continue
		}
		for _, e := range rep.ErrorTexts {
			if !strings.Contains(e.Text, tc.want) && !strings.Contains(e.Text, "timeout") {
				t.Errorf("%q: error %q, want %q", tc.answer, e.Text, tc.want)
			}
		}
	}
}
