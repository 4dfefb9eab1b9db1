package httpwire

// headerLine takes one header field line of the header section.
func (m *message) headerLine(line []byte) error {
	colon := -1
	for i, b := range line {
		if b == ':' {
			colon = i
			break
		}
		if !tokenChar(b) {
			return ErrHeader
		}
	}
	if colon <= 0 {
		return ErrHeader
	}
	name, value := line[:colon], trimSpace(line[colon+1:])
	switch {
	case equalFold(name, "content-length"):
		return m.contentLength(value)
	case equalFold(name, "transfer-encoding"):
		return m.transferEncoding(value)
	case equalFold(name, "connection"):
		m.connection(value)
	}
	return nil
}

// contentLength takes a Content-Length value; repeats must agree.
func (m *message) contentLength(value []byte) error {
	if len(value) == 0 || len(value) > 18 {
		return ErrLength
	}
	var n int64
	for _, b := range value {
		if b < '0' || b > '9' {
			return ErrLength
		}
		n = n*10 + int64(b-'0')
	}
	if m.length >= 0 && m.length != n {
		return ErrLength
	}
	m.length = n
	return nil
}

// transferEncoding takes a Transfer-Encoding value: chunked, alone or
// last after codings this package does not decode, is the only framing
// it reads; anything else is an error.
func (m *message) transferEncoding(value []byte) error {
	last := value
	for i := len(value) - 1; i >= 0; i-- {
		if value[i] == ',' {
			last = value[i+1:]
			break
		}
	}
	if !equalFold(trimSpace(last), "chunked") || len(trimSpace(last)) != len(trimSpace(value)) {
		return ErrEncoding
	}
	m.chunked = true
	return nil
}

// connection takes a Connection value: close ends keep-alive, keep-alive
// asks for it (HTTP/1.0).
func (m *message) connection(value []byte) {
	for len(value) > 0 {
		i := 0
		for i < len(value) && value[i] != ',' {
			i++
		}
		switch opt := trimSpace(value[:i]); {
		case equalFold(opt, "close"):
			m.keepAlive = false
		case equalFold(opt, "keep-alive"):
			m.keepAlive = true
		}
		if i == len(value) {
			break
		}
		value = value[i+1:]
	}
}

// bodyFrom sets the body's framing at the end of the header section:
// none when noBody, else chunked, else Content-Length, else untilClose
// (a response) or none (a request).
func (m *message) bodyFrom(noBody, untilClose bool) {
	switch {
	case noBody:
		m.state = stDone
	case m.chunked:
		m.state = stChunkSize
	case m.length > 0:
		m.state, m.remain = stBody, m.length
	case m.length == 0 || !untilClose:
		m.state = stDone
	default:
		m.state, m.keepAlive = stUntilClose, false
	}
}

// tokenChar reports whether b may be in a header field name (RFC 9110
// §5.6.2).
func tokenChar(b byte) bool {
	switch {
	case 'a' <= b && b <= 'z', 'A' <= b && b <= 'Z', '0' <= b && b <= '9':
		return true
	}
	switch b {
	case '!', '#', '$', '%', '&', '\'', '*', '+', '-', '.', '^', '_', '`', '|', '~':
		return true
	}
	return false
}

// equalFold reports whether b is s, ASCII case folded (s is lower case).
func equalFold(b []byte, s string) bool {
	if len(b) != len(s) {
		return false
	}
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != s[i] {
			return false
		}
	}
	return true
}

// trimSpace trims spaces and tabs at both ends of b.
func trimSpace(b []byte) []byte {
	for len(b) > 0 && (b[0] == ' ' || b[0] == '\t') {
		b = b[1:]
	}
	for len(b) > 0 && (b[len(b)-1] == ' ' || b[len(b)-1] == '\t') {
		b = b[:len(b)-1]
	}
	return b
}
