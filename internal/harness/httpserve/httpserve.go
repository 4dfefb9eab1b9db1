// Package httpserve holds the HTTP/1.1 servers of `serve -proto http`:
// keep-alive servers that answer every request with 200 and a fixed body,
// in protocol style and in stream style on any loopbench variant, and
// gonet, Go's net/http, as the baseline. Requests are read with
// internal/harness/httpwire: pipelined requests are answered in order, a request
// that does not parse gets 400 and the connection is closed, and so is a
// connection whose request asked for it (Connection: close, HTTP/1.0).
package httpserve

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"strconv"

	"github.com/loopbench/loopbench"
	"github.com/loopbench/loopbench/internal/harness/httpwire"
)

// answers are the bytes a server writes, built once.
type answers struct {
	body                 []byte // size bytes
	full, head           []byte // keep-alive
	fullClose, headClose []byte // the last on a connection
}

func newAnswers(size int) answers {
	body := make([]byte, size)
	for i := range body {
		body[i] = 'a' + byte(i%26)
	}
	a := answers{body: body}
	a.full, a.head = httpwire.NewResponse(body, true)
	a.fullClose, a.headClose = httpwire.NewResponse(body, false)
	return a
}

// pick is the answer to the request q ended.
func (a *answers) pick(q *httpwire.Request) []byte {
	switch {
	case q.Head() && q.KeepAlive():
		return a.head
	case q.Head():
		return a.headClose
	case q.KeepAlive():
		return a.full
	}
	return a.fullClose
}

// protocol serves one connection: it answers each request as it ends,
// in the same DataReceived, with the answers built once.
type protocol struct {
	loopbench.ProtocolBase
	t *loopbench.Transport
	a *answers
	q httpwire.Request
}

func (p *protocol) ConnectionMade(t *loopbench.Transport) { p.t = t }
func (p *protocol) PauseWriting()                         { p.t.PauseReading() }
func (p *protocol) ResumeWriting()                        { p.t.ResumeReading() }

func (p *protocol) DataReceived(data []byte) {
	for len(data) > 0 && !p.t.IsClosing() {
		n, done, err := p.q.Feed(data)
		data = data[n:]
		if err != nil {
			p.t.Write(httpwire.BadRequest)
			p.t.Close()
			return
		}
		if !done {
			return
		}
		p.t.Write(p.a.pick(&p.q))
		if !p.q.KeepAlive() {
			p.t.Close()
			return
		}
		p.q.Reset()
	}
}

// ServeProtocol starts a protocol-style HTTP server on l answering size
// bytes; opts are CreateServer's (WithTLS: HTTPS).
func ServeProtocol(l *loopbench.Loop, size int, network, address string, opts ...loopbench.NetOption) (*loopbench.Server, error) {
	a := newAnswers(size)
	return l.CreateServer(network, address, func() loopbench.BaseProtocol { return &protocol{a: &a} }, opts...)
}

// BufferSize is the read size of each stream-style connection.
const BufferSize = 64 << 10

// ServeStream starts a stream-style HTTP server on l answering size
// bytes, asyncio's start_server idiom: a task per connection reads from
// its StreamReader, and writes and drains each answer.
func ServeStream(l *loopbench.Loop, size int, network, address string, opts ...loopbench.NetOption) (*loopbench.Server, error) {
	a := newAnswers(size)
	return loopbench.StartServer(l, network, address, func(t *loopbench.Task, r *loopbench.StreamReader, w *loopbench.StreamWriter) {
		defer w.Close()
		var q httpwire.Request
		for {
			data, err := r.Read(t, BufferSize)
			if err != nil { // io.EOF at the end
				return
			}
			for len(data) > 0 {
				n, done, err := q.Feed(data)
				data = data[n:]
				if err != nil {
					w.Write(httpwire.BadRequest)
					w.Drain(t)
					return
				}
				if !done {
					break
				}
				if w.Write(a.pick(&q)) != nil || w.Drain(t) != nil || !q.KeepAlive() {
					return
				}
				q.Reset()
			}
		}
	}, opts...)
}

// Listen starts the style ("protocol" or "stream") HTTP server on l at
// address answering size bytes, and returns the address it listens on.
func Listen(l *loopbench.Loop, style string, size int, network, address string, opts ...loopbench.NetOption) (net.Addr, error) {
	var s *loopbench.Server
	var err error
	switch style {
	case "protocol":
		s, err = ServeProtocol(l, size, network, address, opts...)
	case "stream":
		s, err = ServeStream(l, size, network, address, opts...)
	default:
		return nil, fmt.Errorf("httpserve: unknown style %q (protocol, stream)", style)
	}
	if err != nil {
		return nil, err
	}
	return s.Addr(), nil
}

// Gonet is Go's net/http answering a fixed body: the baseline.
type Gonet struct {
	srv *http.Server
	ln  net.Listener
	err chan error
}

// ServeGonet starts net/http on address answering size bytes.
func ServeGonet(network, address string, size int) (*Gonet, error) {
	ln, err := net.Listen(network, address)
	if err != nil {
		return nil, err
	}
	payload := newAnswers(size).body
	length := strconv.Itoa(size)
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/octet-stream")
		w.Header().Set("Content-Length", length)
		if r.Method != http.MethodHead {
			w.Write(payload)
		}
	})
	g := &Gonet{srv: &http.Server{Handler: h}, ln: ln, err: make(chan error, 1)}
	go func() { g.err <- g.srv.Serve(ln) }()
	return g, nil
}

// Addr is the address g listens on.
func (g *Gonet) Addr() net.Addr { return g.ln.Addr() }

// Close stops g and closes its connections.
func (g *Gonet) Close() error {
	err := g.srv.Close()
	if serr := <-g.err; !errors.Is(serr, http.ErrServerClosed) && err == nil {
		err = serr
	}
	return err
}
