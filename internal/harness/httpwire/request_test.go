package httpwire

import (
	"strconv"
	"strings"
	"testing"
)

// parseRequests feeds data to one Request in pieces of step bytes (0:
// whole) and returns, for each request that ended, its body length and
// keep-alive, and the first error.
func parseRequests(data string, step int) (got []string, err error) {
	var q Request
	used := 0
	for used < len(data) {
		end := len(data)
		if step > 0 {
			end = min(used+step, len(data))
		}
		n, done, err := q.Feed([]byte(data[used:end]))
		used += n
		if err != nil {
			return got, err
		}
		if done {
			got = append(got, strings.Join([]string{strconv.FormatInt(q.BodyBytes(), 10), boolText(q.KeepAlive()), boolText(q.Head())}, " "))
			q.Reset()
		}
	}
	return got, q.EOF()
}

func boolText(b bool) string {
	if b {
		return "y"
	}
	return "n"
}

func TestRequest(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want []string // body length, keep-alive, HEAD
		err  error
	}{
		{"get", "GET / HTTP/1.1\r\nHost: x\r\n\r\n", []string{"0 y n"}, nil},
		{"pipelined", "GET /a HTTP/1.1\r\n\r\nHEAD /b HTTP/1.1\r\n\r\nPOST /c HTTP/1.1\r\nContent-Length: 3\r\n\r\nabc", []string{"0 y n", "0 y y", "3 y n"}, nil},
		{"chunked body", "POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n", []string{"3 y n"}, nil},
		{"close", "GET / HTTP/1.1\r\nConnection: close\r\n\r\n", []string{"0 n n"}, nil},
		{"HTTP/1.0", "GET / HTTP/1.0\r\n\r\n", []string{"0 n n"}, nil},
		{"cut", "GET / HTTP/1.1\r\nHo", nil, ErrCut},
		{"cut body", "POST / HTTP/1.1\r\nContent-Length: 9\r\n\r\nab", nil, ErrCut},
		{"no version", "GET /\r\n\r\n", nil, ErrRequestLine},
		{"bad method", "G(T / HTTP/1.1\r\n\r\n", nil, ErrRequestLine},
		{"HTTP/2", "GET / HTTP/2.0\r\n\r\n", nil, ErrRequestLine},
	}
	for _, tc := range tests {
		for _, step := range []int{0, 1, 5} {
			got, err := parseRequests(tc.in, step)
			if err != tc.err || strings.Join(got, ",") != strings.Join(tc.want, ",") {
				t.Errorf("%s, pieces of %d: got %q, %v; want %q, %v", tc.name, step, got, err, tc.want, tc.err)
			}
		}
	}
}

// TestRoundTrip parses what NewRequest and NewResponse write.
func TestRoundTrip(t *testing.T) {
	req, err := NewRequest("POST", "127.0.0.1:80", "/p?q=1", []string{"X-A: 1", "Accept:  */* "}, []byte("body"))
	if err != nil {
		t.Fatal(err)
	}
	want := "POST /p?q=1 HTTP/1.1\r\nHost: 127.0.0.1:80\r\nX-A: 1\r\nAccept: */*\r\nContent-Length: 4\r\n\r\nbody"
	if string(req) != want {
		t.Fatalf("request %q, want %q", req, want)
	}
	if got, err := parseRequests(string(req), 2); err != nil || len(got) != 1 || got[0] != "4 y n" {
		t.Errorf("request parsed as %q, %v", got, err)
	}
	full, head := NewResponse([]byte(strings.Repeat("z", 1024)), true)
	if o := parseResponse(string(full), 100, false, false); !o.done || o.err != nil || o.status != 200 || o.body != 1024 || !o.keepAlive || o.used != len(full) {
		t.Errorf("response parsed as %+v", o)
	}
	if o := parseResponse(string(head), 0, true, false); !o.done || o.body != 0 || o.used != len(head) {
		t.Errorf("HEAD response parsed as %+v", o)
	}
	if full, _ := NewResponse(nil, false); !strings.Contains(string(full), "Connection: close\r\n") {
		t.Errorf("a response closing the connection does not say so: %q", full)
	}
	if o := parseResponse(string(BadRequest), 0, false, false); o.status != 400 || !o.done || o.keepAlive {
		t.Errorf("BadRequest parsed as %+v", o)
	}
}

func TestNewRequestRefuses(t *testing.T) {
	for _, tc := range []struct {
		method, path string
		headers      []string
	}{
		{"GET", "nopath", nil},
		{"GE T", "/", nil},
		{"GET", "/", []string{"no colon"}},
		{"GET", "/", []string{"Bad Name: x"}},
		{"GET", "/", []string{"Content-Length: 3"}},
		{"GET", "/", []string{"X: a\r\nInjected: b"}},
	} {
		if _, err := NewRequest(tc.method, "h", tc.path, tc.headers, nil); err == nil {
			t.Errorf("NewRequest(%q, %q, %q) did not fail", tc.method, tc.path, tc.headers)
		}
	}
}

// FuzzRequest feeds arbitrary bytes whole and in pieces: the parser must
// never panic, and the pieces must not change the requests it finds.
func FuzzRequest(f *testing.F) {
	f.Add("GET / HTTP/1.1\r\n\r\nPOST / HTTP/1.1\r\nContent-Length: 1\r\n\r\nx", 3)
	f.Add("POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n1\r\nx\r\n0\r\n\r\n", 1)
	f.Fuzz(func(t *testing.T, in string, step int) {
		step = 1 + abs(step)%16
		w, werr := parseRequests(in, 0)
		p, perr := parseRequests(in, step)
		if werr != perr || strings.Join(w, ",") != strings.Join(p, ",") {
			t.Fatalf("whole %q %v, in pieces of %d %q %v", w, werr, step, p, perr)
		}
	})
}
