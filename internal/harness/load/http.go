package load

import (
	"errors"
	"io"
	"strconv"
)

// HTTP makes a run speak HTTP/1.1 instead of the echo protocol: every
// request is the same bytes, Request (httpwire.NewRequest builds them),
// and its answer is a response read by its framing, whatever its body.
// A response whose status is not 2xx is an error named by its code; the
// connection stays open when the response allows. One request is in
// flight per connection (wrk2's model), so bytes past a response put the
// stream out of step: the next request fails and the connection is
// redialled, as a closed one is.
type HTTP struct {
	Request []byte
	Head    bool // the method is HEAD: responses carry no body
}

// errOutOfStep is bytes past a response, or with no request outstanding:
// more than one response to a request.
var errOutOfStep = errors.New("http: bytes past the response to the request in flight")

// StatusError is a response whose status is not 2xx.
type StatusError int

func (e StatusError) Error() string { return "HTTP status " + strconv.Itoa(int(e)) }

// receivedHTTP takes bytes of a response; arrived is their arrival at
// the socket in Unix ns (0: unknown).
func (c *conn) receivedHTTP(data []byte, arrived int64) {
	c.w.work++
	if c.state != inflight {
		c.broken = errOutOfStep // bytes with no request outstanding
		c.drop()
		return
	}
	n, done, err := c.resp.Feed(data)
	switch {
	case err != nil:
		c.fail(err)
	case done && n < len(data):
		c.broken = errOutOfStep
		c.answerHTTP(arrived)
	case done:
		c.answerHTTP(arrived)
	}
}

// answerHTTP ends the current request with its whole response: answered
// when the status is 2xx, else an error of its code.
func (c *conn) answerHTTP(arrived int64) {
	if !c.resp.KeepAlive() {
		c.drop() // the next request dials
	}
	if s := c.resp.Status(); s < 200 || s > 299 {
		c.failed(StatusError(s))
		c.end(c.w.now())
		return
	}
	c.answer(c.answeredAt(arrived))
}

// lostHTTP is the end of the connection during a request: it ends a
// response whose body runs to the close; else the request fails.
func (c *conn) lostHTTP(err error) {
	if err == io.EOF {
		done, cut := c.resp.EOF()
		if done {
			c.answerHTTP(0)
			return
		}
		if cut != nil {
			err = io.ErrUnexpectedEOF
		}
	}
	c.fail(err)
}

// newResponse prepares the parser for the current request's response.
func (c *conn) newResponse() {
	c.resp.Reset(c.w.run.cfg.HTTP.Head)
}
