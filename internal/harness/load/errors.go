package load

import (
	"errors"
	"io"
	"net"
	"os"
	"slices"
	"syscall"

	"github.com/loopbench/loopbench/internal/measure/loadresult"
)

// NotEchoText is the error text of an answer that is not the echo of its
// request: the server does not speak the echo protocol.
const NotEchoText = "reply is not the echo of the request"

// connectError is Run's failure to open any connection: its text names
// the address and the first error as the error counts do (errorText),
// and it unwraps to that error (a TLS handshake's, for one).
type connectError struct {
	addr string
	err  error
}

func (e *connectError) Error() string { return "cannot connect to " + e.addr + ": " + errorText(e.err) }

func (e *connectError) Unwrap() error { return e.err }

// errorLog groups errors by text and counts those that say the server
// went away (serverGone): one per loop, owned by its thread.
type errorLog struct {
	byText map[string]int64
	order  []string
	gone   int64
	// expired counts the errors that are a deadline passing
	// (os.ErrDeadlineExceeded: a request's timeout, a dial's).
	expired int64
	// mismatched counts the answers that were not the echo of their
	// request (errMismatch).
	mismatched int64
}

func newErrorLog() *errorLog { return &errorLog{byText: map[string]int64{}} }

func (l *errorLog) add(err error) {
	l.addN(errorText(err), 1)
	if serverGone(err) {
		l.gone++
	}
	if errors.Is(err, os.ErrDeadlineExceeded) {
		l.expired++
	}
	if errors.Is(err, errMismatch) {
		l.mismatched++
	}
}

// serverGone reports whether err says the server went away rather than
// that it was slow: a connection refused, reset, or closed by it (EOF, a
// broken pipe). A server that dies mid-run leaves these.
func serverGone(err error) bool {
	for _, e := range []error{syscall.ECONNREFUSED, syscall.ECONNRESET, syscall.EPIPE, io.EOF, io.ErrUnexpectedEOF} {
		if errors.Is(err, e) {
			return true
		}
	}
	return false
}

func (l *errorLog) addN(text string, n int64) {
	if _, ok := l.byText[text]; !ok {
		l.order = append(l.order, text)
	}
	l.byText[text] += n
}

// counts returns the total and the groups, most frequent first.
func (l *errorLog) counts() (int64, []loadresult.ErrorCount) {
	var total int64
	out := make([]loadresult.ErrorCount, 0, len(l.order))
	for _, t := range l.order {
		out = append(out, loadresult.ErrorCount{Text: t, Count: l.byText[t]})
		total += l.byText[t]
	}
	slices.SortStableFunc(out, func(a, b loadresult.ErrorCount) int { return int(b.Count - a.Count) })
	return total, out
}

// errorText names an error without its addresses, so that the errors of
// many connections group: "read: i/o timeout", "dial: connection refused".
func errorText(err error) string {
	var op *net.OpError
	switch {
	case errors.Is(err, os.ErrDeadlineExceeded):
		if errors.As(err, &op) {
			return op.Op + ": i/o timeout"
		}
		return "i/o timeout"
	case errors.Is(err, io.EOF):
		return "read: EOF (the server closed the connection)"
	case errors.Is(err, io.ErrUnexpectedEOF):
		return "read: unexpected EOF (the server closed the connection mid-reply)"
	case errors.Is(err, syscall.ECONNRESET):
		if errors.As(err, &op) {
			return op.Op + ": connection reset by peer"
		}
		return "connection reset by peer"
	case errors.As(err, &op):
		inner := op.Err
		var se *os.SyscallError
		if errors.As(inner, &se) {
			inner = se.Err
		}
		return op.Op + ": " + inner.Error()
	}
	return err.Error()
}
