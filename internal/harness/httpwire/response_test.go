package httpwire

import (
	"errors"
	"strings"
	"testing"
)

// outcome is what parsing one connection's bytes gives.
type outcome struct {
	used      int
	done      bool
	err       error
	status    int
	body      int64
	keepAlive bool
}

// parseResponse feeds data to a new Response in pieces of step bytes (0:
// whole) and, when eof, ends the connection after it.
func parseResponse(data string, step int, head, eof bool) outcome {
	var r Response
	r.Reset(head)
	var o outcome
	for o.used < len(data) && !o.done && o.err == nil {
		end := len(data)
		if step > 0 {
			end = min(o.used+step, len(data))
		}
		piece := data[o.used:end]
		n, done, err := r.Feed([]byte(piece))
		o.used, o.done, o.err = o.used+n, done, err
		if !done && err == nil && n != len(piece) {
			o.err = errors.New("Feed used fewer bytes than it was given without ending the message")
		}
	}
	if eof && !o.done && o.err == nil {
		o.done, o.err = r.EOF()
	}
	o.status, o.body, o.keepAlive = r.Status(), r.BodyBytes(), r.KeepAlive()
	return o
}

func TestResponse(t *testing.T) {
	long := "HTTP/1.1 200 OK\r\nX: " + strings.Repeat("a", MaxLine) + "\r\n\r\n"
	many := "HTTP/1.1 200 OK\r\n" + strings.Repeat("X-Filler: "+strings.Repeat("b", 1000)+"\r\n", MaxHeader/1000+1) + "\r\n"
	tests := []struct {
		name      string
		in        string
		head, eof bool
		want      outcome // used is checked against len(in) minus tail
		tail      int     // bytes after the response (the next one's)
	}{
		{name: "content-length", in: "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello", want: outcome{done: true, status: 200, body: 5, keepAlive: true}},
		{name: "bare LF", in: "HTTP/1.1 200 OK\nContent-Length: 2\n\nhi", want: outcome{done: true, status: 200, body: 2, keepAlive: true}},
		{name: "pipelined", in: "HTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\nxHTTP/1.1 200 OK\r\n", tail: 17, want: outcome{done: true, status: 200, body: 1, keepAlive: true}},
		{name: "chunked", in: "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5;ext=1\r\nhello\r\nA\r\n0123456789\r\n0\r\nTrailer: x\r\n\r\n", want: outcome{done: true, status: 200, body: 15, keepAlive: true}},
		{name: "chunked wins over length", in: "HTTP/1.1 200 OK\r\nContent-Length: 99\r\nTransfer-Encoding: chunked\r\n\r\n1\r\nx\r\n0\r\n\r\n", want: outcome{done: true, status: 200, body: 1, keepAlive: true}},
		{name: "204 has no body", in: "HTTP/1.1 204 No Content\r\nContent-Length: 7\r\n\r\n", want: outcome{done: true, status: 204, keepAlive: true}},
		{name: "304 has no body", in: "HTTP/1.1 304 Not Modified\r\n\r\n", want: outcome{done: true, status: 304, keepAlive: true}},
		{name: "HEAD has no body", in: "HTTP/1.1 200 OK\r\nContent-Length: 1024\r\n\r\n", head: true, want: outcome{done: true, status: 200, keepAlive: true}},
		{name: "interim skipped", in: "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 201 Created\r\nContent-Length: 0\r\n\r\n", want: outcome{done: true, status: 201, keepAlive: true}},
		{name: "error status is a response", in: "HTTP/1.1 503 Service Unavailable\r\nContent-Length: 3\r\nConnection: close\r\n\r\nbye", want: outcome{done: true, status: 503, body: 3}},
		{name: "until close", in: "HTTP/1.1 200 OK\r\n\r\nall of it", eof: true, want: outcome{done: true, status: 200, body: 9}},
		{name: "HTTP/1.0", in: "HTTP/1.0 200 OK\r\nContent-Length: 0\r\n\r\n", want: outcome{done: true, status: 200}},
		{name: "HTTP/1.0 keep-alive", in: "HTTP/1.0 200 OK\r\nConnection: Keep-Alive\r\nContent-Length: 0\r\n\r\n", want: outcome{done: true, status: 200, keepAlive: true}},
		{name: "cut status line", in: "HTTP/1.1 2", eof: true, want: outcome{err: ErrCut}},
		{name: "cut headers", in: "HTTP/1.1 200 OK\r\nContent-Len", eof: true, want: outcome{err: ErrCut, status: 200, keepAlive: true}},
		{name: "cut body", in: "HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc", eof: true, want: outcome{err: ErrCut, status: 200, body: 3, keepAlive: true}},
		{name: "cut chunk", in: "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n10\r\nabc", eof: true, want: outcome{err: ErrCut, status: 200, body: 3, keepAlive: true}},
		{name: "nothing yet", in: "", eof: true, want: outcome{}},
		{name: "not HTTP", in: "hello world\n", want: outcome{err: ErrStatusLine}},
		{name: "echo of a request", in: "GET / HTTP/1.1\r\n", want: outcome{err: ErrStatusLine}},
		{name: "bad code", in: "HTTP/1.1 2x0 OK\r\n", want: outcome{err: ErrStatusLine}},
		{name: "bad length", in: "HTTP/1.1 200 OK\r\nContent-Length: 1x\r\n\r\n", want: outcome{err: ErrLength, status: 200, keepAlive: true}},
		{name: "two lengths", in: "HTTP/1.1 200 OK\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n", want: outcome{err: ErrLength, status: 200, keepAlive: true}},
		{name: "gzip alone", in: "HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip\r\n\r\n", want: outcome{err: ErrEncoding, status: 200, keepAlive: true}},
		{name: "bad chunk size", in: "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", want: outcome{err: ErrChunk, status: 200, keepAlive: true}},
		{name: "chunk overruns", in: "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n1\r\nxy\r\n", want: outcome{err: ErrChunk, status: 200, body: 1, keepAlive: true}},
		{name: "header without colon", in: "HTTP/1.1 200 OK\r\nbogus\r\n\r\n", want: outcome{err: ErrHeader, status: 200, keepAlive: true}},
		{name: "upgrade", in: "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\n\r\n", want: outcome{err: ErrUpgrade, status: 101, keepAlive: true}},
		{name: "line too long", in: long, want: outcome{err: ErrLineTooLong, status: 200, keepAlive: true}},
		{name: "header too long", in: many, want: outcome{err: ErrHeaderTooLong, status: 200, keepAlive: true}},
	}
	for _, tc := range tests {
		for _, step := range []int{0, 1, 3, 7} {
			got := parseResponse(tc.in, step, tc.head, tc.eof)
			want := tc.want
			if want.err == nil {
				want.used = len(tc.in) - tc.tail
			}
			if got.err != nil || want.err != nil {
				got.used, want.used = 0, 0 // where an error is found depends on the pieces
			}
			if got != want {
				t.Errorf("%s, pieces of %d: got %+v, want %+v", tc.name, step, got, want)
			}
		}
	}
}

// TestResponseAllocs checks that parsing a response allocates nothing
// once the connection's parser has read one.
func TestResponseAllocs(t *testing.T) {
	in := []byte("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nConnection: keep-alive\r\n\r\n5\r\nhello\r\n0\r\n\r\n")
	var r Response
	feed := func() {
		r.Reset(false)
		for off := 0; off < len(in); off += 10 {
			if _, done, err := r.Feed(in[off:min(off+10, len(in))]); err != nil || done != (off+10 >= len(in)) {
				t.Fatalf("at %d: done %v, err %v", off, done, err)
			}
		}
	}
	feed()
	if a := testing.AllocsPerRun(100, feed); a != 0 {
		t.Errorf("%v allocations per response, want 0", a)
	}
}

// FuzzResponse feeds arbitrary bytes whole and in pieces: the parser
// must never panic, and the pieces must not change the outcome.
func FuzzResponse(f *testing.F) {
	f.Add("HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello", 1, false)
	f.Add("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n", 2, false)
	f.Add("HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\n\r\nrest", 3, true)
	f.Fuzz(func(t *testing.T, in string, step int, head bool) {
		step = 1 + abs(step)%16
		whole := parseResponse(in, 0, head, true)
		pieces := parseResponse(in, step, head, true)
		if whole.err != nil || pieces.err != nil {
			whole.used, pieces.used, whole.body, pieces.body = 0, 0, 0, 0
		}
		if whole != pieces {
			t.Fatalf("whole %+v, in pieces of %d %+v", whole, step, pieces)
		}
	})
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}
