// Package httpwire reads and writes the HTTP/1.1 messages of loopbench's
// HTTP mode: the requests `load -proto http` sends and the responses it
// reads back, and the requests `serve -proto http` answers.
//
// The parsers are incremental and allocate nothing in the steady state:
// bytes are fed as they arrive, in pieces of any size, and Feed says how
// many belong to the current message and whether it ended there. A
// message's body is framed as RFC 9112 §6 says: no body for a response
// to HEAD or with status 1xx, 204 or 304; else chunked when
// Transfer-Encoding ends in chunked; else Content-Length bytes; else (a
// response only) everything up to the end of the connection. Lines may
// end in CRLF or a bare LF. Malformed input is an error, never a hang: a
// line longer than MaxLine or a header section longer than MaxHeader
// fails, and so does a connection that closes inside a message (EOF).
package httpwire

import (
	"errors"
)

// Limits on what a parser buffers.
const (
	MaxLine   = 16 << 10 // a start line, a header line or a chunk-size line
	MaxHeader = 64 << 10 // the header section (or the trailers)
)

// The errors a parser returns, one per kind, so that counting errors by
// their text counts kinds.
var (
	ErrStatusLine    = errors.New("http: malformed status line")
	ErrRequestLine   = errors.New("http: malformed request line")
	ErrHeader        = errors.New("http: malformed header line")
	ErrLineTooLong   = errors.New("http: line too long")
	ErrHeaderTooLong = errors.New("http: header section too long")
	ErrLength        = errors.New("http: bad Content-Length")
	ErrEncoding      = errors.New("http: unsupported Transfer-Encoding")
	ErrChunk         = errors.New("http: malformed chunk")
	ErrUpgrade       = errors.New("http: protocol upgrade (101) is not supported")
	ErrCut           = errors.New("http: connection closed inside a message")
)

// The parts of a message, in the order they come.
const (
	stStart      = iota // the start line
	stHeaders           // header lines up to the empty line
	stBody              // Content-Length bytes
	stChunkSize         // a chunk-size line
	stChunkData         // a chunk's bytes
	stChunkEnd          // the CRLF after a chunk's bytes
	stTrailers          // trailer lines after the last chunk
	stUntilClose        // a response body up to the end of the connection
	stDone
)

// message is the framing both parsers share: lines, headers and the body.
type message struct {
	state     int
	line      []byte // a line cut by the end of a Feed, kept to be completed
	header    int    // bytes of the header section (or trailers) so far
	remain    int64  // body or chunk bytes still to come
	length    int64  // Content-Length, -1 when absent
	chunked   bool
	keepAlive bool
	bodyBytes int64 // body bytes of the message (the chunks' data)
}

// reset prepares m for the next message; keepAlive is the version's
// default (true for HTTP/1.1).
func (m *message) reset() {
	line := m.line[:0]
	*m = message{line: line, length: -1}
}

// nextLine returns the next whole line of data (without its line end)
// and how many bytes of data it used. A line cut by the end of data is
// kept in m.line and ok is false.
func (m *message) nextLine(data []byte) (line []byte, used int, ok bool, err error) {
	for i, b := range data {
		if b != '\n' {
			continue
		}
		line = data[:i]
		if len(m.line) > 0 {
			if len(m.line)+i > MaxLine {
				return nil, 0, false, ErrLineTooLong
			}
			m.line = append(m.line, line...)
			line = m.line
			m.line = m.line[:0]
		}
		if n := len(line); n > 0 && line[n-1] == '\r' {
			line = line[:n-1]
		}
		if len(line) > MaxLine {
			return nil, 0, false, ErrLineTooLong
		}
		return line, i + 1, true, nil
	}
	if len(m.line)+len(data) > MaxLine {
		return nil, 0, false, ErrLineTooLong
	}
	m.line = append(m.line, data...)
	return nil, len(data), false, nil
}

// feedHeaders parses data up to the end of the header section: start
// takes the start line, end frames the body when the empty line comes.
// It returns the bytes of data used and whether the section ended.
func (m *message) feedHeaders(data []byte, start func(line []byte) error, end func() error) (int, bool, error) {
	used := 0
	for m.state <= stHeaders {
		line, n, ok, err := m.nextLine(data[used:])
		used += n
		if err == nil && m.state == stHeaders {
			err = m.countHeader(n)
		}
		if err != nil || !ok {
			return used, false, err
		}
		switch {
		case m.state == stStart && len(line) == 0:
			// RFC 9112 §2.2: empty lines before the start line are ignored.
		case m.state == stStart:
			m.state = stHeaders
			err = start(line)
		case len(line) == 0:
			return used, true, end()
		default:
			err = m.headerLine(line)
		}
		if err != nil {
			return used, false, err
		}
	}
	return used, true, nil
}

// feedBody parses data as the body framed by feedHeaders. It returns the
// bytes of data used and whether the message ended.
func (m *message) feedBody(data []byte) (int, bool, error) {
	used := 0
	for m.state != stDone {
		if used == len(data) {
			return used, false, nil
		}
		switch m.state {
		case stBody, stChunkData:
			n := int(min(m.remain, int64(len(data)-used)))
			used += n
			m.remain -= int64(n)
			m.bodyBytes += int64(n)
			if m.remain == 0 && m.state == stBody {
				m.state = stDone
			} else if m.remain == 0 {
				m.state = stChunkEnd
			}
		case stUntilClose:
			m.bodyBytes += int64(len(data) - used)
			return len(data), false, nil
		default:
			line, n, ok, err := m.nextLine(data[used:])
			used += n
			if err == nil && m.state == stTrailers {
				err = m.countHeader(n)
			}
			if err != nil || !ok {
				return used, false, err
			}
			if err := m.chunkLine(line); err != nil {
				return used, false, err
			}
		}
	}
	return used, true, nil
}

// countHeader counts n more bytes of the header section or trailers.
func (m *message) countHeader(n int) error {
	if m.header += n; m.header > MaxHeader {
		return ErrHeaderTooLong
	}
	return nil
}

// chunkLine takes a whole line of a chunked body: a chunk-size line, the
// line end after a chunk's data, or a trailer line.
func (m *message) chunkLine(line []byte) error {
	switch m.state {
	case stChunkSize:
		return m.chunkSize(line)
	case stChunkEnd:
		if len(line) != 0 {
			return ErrChunk
		}
		m.state = stChunkSize
	case stTrailers:
		if len(line) == 0 {
			m.state = stDone
		}
	}
	return nil
}

// chunkSize takes a chunk-size line: hex digits, then extensions.
func (m *message) chunkSize(line []byte) error {
	var size int64
	digits := 0
	for _, b := range line {
		v := hexValue(b)
		if v < 0 {
			break
		}
		if size > (1<<62)>>4 {
			return ErrChunk
		}
		size = size<<4 | int64(v)
		digits++
	}
	if digits == 0 {
		return ErrChunk
	}
	if rest := trimSpace(line[digits:]); len(rest) > 0 && rest[0] != ';' {
		return ErrChunk
	}
	if size == 0 {
		m.state, m.header = stTrailers, 0
		return nil
	}
	m.state, m.remain = stChunkData, size
	return nil
}

func hexValue(b byte) int {
	switch {
	case '0' <= b && b <= '9':
		return int(b - '0')
	case 'a' <= b && b <= 'f':
		return int(b-'a') + 10
	case 'A' <= b && b <= 'F':
		return int(b-'A') + 10
	}
	return -1
}
