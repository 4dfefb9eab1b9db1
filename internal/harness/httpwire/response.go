package httpwire

// Response parses the responses of one connection, one at a time.
// The zero value is ready for a response to a request that is not HEAD.
type Response struct {
	m      message
	head   bool // the request was HEAD: no body, whatever the headers say
	status int
	http10 bool
	start  func([]byte) error // r.statusLine, bound once
	end    func() error       // r.endHeaders, bound once
}

// Reset prepares r for the response to the next request; head says the
// request was HEAD.
func (r *Response) Reset(head bool) {
	r.m.reset()
	r.head, r.status, r.http10 = head, 0, false
}

// Status is the response's status code, once its status line is read.
func (r *Response) Status() int { return r.status }

// KeepAlive reports whether the connection may carry another request
// after this response (HTTP/1.1 without Connection: close, or HTTP/1.0
// with Connection: keep-alive, and a body not framed by the close).
func (r *Response) KeepAlive() bool { return r.m.keepAlive }

// BodyBytes is the length of the response's body so far (the data of
// its chunks when chunked).
func (r *Response) BodyBytes() int64 { return r.m.bodyBytes }

// Feed parses data, the next bytes of the connection. It returns how
// many of them belong to the response and whether it ended there: bytes
// after it are the next response's. Interim responses (1xx but 101) are
// skipped. After an error the connection is out of step: close it.
func (r *Response) Feed(data []byte) (n int, done bool, err error) {
	if r.start == nil {
		r.start, r.end = r.statusLine, r.endHeaders
		r.m.length = -1
	}
	for r.m.state <= stHeaders {
		used, ended, err := r.m.feedHeaders(data[n:], r.start, r.end)
		n += used
		if err != nil || !ended {
			return n, false, err
		}
		if r.status < 200 {
			r.Reset(r.head) // an interim response: the final one follows
		}
	}
	used, done, err := r.m.feedBody(data[n:])
	return n + used, done, err
}

// endHeaders frames the body at the end of the header section.
func (r *Response) endHeaders() error {
	if r.status == 101 {
		return ErrUpgrade
	}
	r.m.bodyFrom(r.head || r.status < 200 || r.status == 204 || r.status == 304, true)
	return nil
}

// EOF tells r that the connection ended; done when that ends a response
// whose body runs to the close, ErrCut when a response was under way.
func (r *Response) EOF() (done bool, err error) {
	switch {
	case r.m.state == stUntilClose:
		r.m.state = stDone
		return true, nil
	case r.m.state == stStart && len(r.m.line) == 0:
		return false, nil // between responses
	case r.m.state == stDone:
		return true, nil
	}
	return false, ErrCut
}

// statusLine takes "HTTP/1.x SP 3DIGIT [SP reason]".
func (r *Response) statusLine(line []byte) error {
	if len(line) < 12 || string(line[:7]) != "HTTP/1." || (line[7] != '0' && line[7] != '1') || line[8] != ' ' {
		return ErrStatusLine
	}
	code := 0
	for _, b := range line[9:12] {
		if b < '0' || b > '9' {
			return ErrStatusLine
		}
		code = code*10 + int(b-'0')
	}
	if code < 100 || (len(line) > 12 && line[12] != ' ') {
		return ErrStatusLine
	}
	r.status, r.http10 = code, line[7] == '0'
	r.m.keepAlive = !r.http10
	return nil
}
