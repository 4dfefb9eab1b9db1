package httpwire

import (
	"fmt"
	"strconv"
	"strings"
)

// Request parses the requests of one connection, one at a time, for a
// server. The zero value is ready.
type Request struct {
	m     message
	head  bool
	start func([]byte) error // q.requestLine, bound once
	end   func() error       // q.endHeaders, bound once
}

// Reset prepares q for the next request.
func (q *Request) Reset() {
	q.m.reset()
	q.head = false
}

// Head reports whether the request is HEAD (its response has no body).
func (q *Request) Head() bool { return q.head }

// KeepAlive reports whether the connection stays open after the
// response: HTTP/1.1 without Connection: close, or HTTP/1.0 with
// Connection: keep-alive.
func (q *Request) KeepAlive() bool { return q.m.keepAlive }

// BodyBytes is the length of the request's body so far.
func (q *Request) BodyBytes() int64 { return q.m.bodyBytes }

// Feed parses data, the next bytes of the connection. It returns how
// many of them belong to the request and whether it ended there: bytes
// after it are the next (pipelined) request's. After an error the
// connection is out of step: answer 400 and close it.
func (q *Request) Feed(data []byte) (n int, done bool, err error) {
	if q.start == nil {
		q.start, q.end = q.requestLine, q.endHeaders
		q.m.length = -1
	}
	if q.m.state <= stHeaders {
		used, ended, err := q.m.feedHeaders(data, q.start, q.end)
		if err != nil || !ended {
			return used, false, err
		}
		n = used
	}
	used, done, err := q.m.feedBody(data[n:])
	return n + used, done, err
}

// EOF tells q that the connection ended: ErrCut when a request was
// under way, nil between requests.
func (q *Request) EOF() error {
	if q.m.state == stStart && len(q.m.line) == 0 || q.m.state == stDone {
		return nil
	}
	return ErrCut
}

// endHeaders frames the body: a request without Content-Length or
// chunked coding has none.
func (q *Request) endHeaders() error {
	q.m.bodyFrom(false, false)
	return nil
}

// requestLine takes "METHOD SP target SP HTTP/1.x".
func (q *Request) requestLine(line []byte) error {
	sp1 := indexByte(line, ' ')
	if sp1 <= 0 {
		return ErrRequestLine
	}
	for _, b := range line[:sp1] {
		if !tokenChar(b) {
			return ErrRequestLine
		}
	}
	rest := line[sp1+1:]
	sp2 := indexByte(rest, ' ')
	if sp2 <= 0 {
		return ErrRequestLine
	}
	version := rest[sp2+1:]
	if len(version) != 8 || string(version[:7]) != "HTTP/1." || (version[7] != '0' && version[7] != '1') {
		return ErrRequestLine
	}
	q.head = string(line[:sp1]) == "HEAD"
	q.m.keepAlive = version[7] == '1'
	return nil
}

func indexByte(b []byte, c byte) int {
	for i, x := range b {
		if x == c {
			return i
		}
	}
	return -1
}

// NewRequest is the bytes of one HTTP/1.1 request: method to path at
// host, the extra header lines ("Name: value"), a Content-Length when
// body is not empty (or the method usually has one), and body. It fails
// on a header that is not "Name: value" or that sets the framing itself.
func NewRequest(method, host, path string, headers []string, body []byte) ([]byte, error) {
	if method == "" || strings.ContainsAny(method, " \r\n") || !strings.HasPrefix(path, "/") || strings.ContainsAny(path, " \r\n") {
		return nil, fmt.Errorf("httpwire: bad request line %q %q", method, path)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s HTTP/1.1\r\nHost: %s\r\n", method, path, host)
	for _, h := range headers {
		name, value, ok := strings.Cut(h, ":")
		if !ok || name == "" || strings.ContainsAny(h, "\r\n") {
			return nil, fmt.Errorf("httpwire: header %q: want Name: value", h)
		}
		for i := 0; i < len(name); i++ {
			if !tokenChar(name[i]) {
				return nil, fmt.Errorf("httpwire: header %q: want Name: value", h)
			}
		}
		switch strings.ToLower(name) {
		case "content-length", "transfer-encoding", "host":
			return nil, fmt.Errorf("httpwire: header %q: %s is set by the request itself", h, name)
		}
		fmt.Fprintf(&b, "%s: %s\r\n", name, strings.TrimSpace(value))
	}
	if len(body) > 0 || method == "POST" || method == "PUT" || method == "PATCH" {
		b.WriteString("Content-Length: " + strconv.Itoa(len(body)) + "\r\n")
	}
	b.WriteString("\r\n")
	b.Write(body)
	return []byte(b.String()), nil
}

// NewResponse is the bytes of a 200 response carrying body, with its
// Content-Length, and Connection: close unless keepAlive. The head form
// (the answer to HEAD) is the same without the body.
func NewResponse(body []byte, keepAlive bool) (full, head []byte) {
	h := "HTTP/1.1 200 OK\r\nContent-Type: application/octet-stream\r\nContent-Length: " + strconv.Itoa(len(body)) + "\r\n"
	if !keepAlive {
		h += "Connection: close\r\n"
	}
	h += "\r\n"
	return append([]byte(h), body...), []byte(h)
}

// BadRequest is the answer to a request that does not parse; the
// connection is closed after it.
var BadRequest = []byte("HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
