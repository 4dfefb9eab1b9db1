package load

import (
	"context"
	"errors"
	"io"
	"net"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/loopbench/loopbench/internal/measure/loadresult"
)

// TestServerGoneErrors: refused, reset and closed connections say the
// server went away; a timeout or a wrong reply does not.
func TestServerGoneErrors(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	_, refused := net.Dial("tcp", addr)
	reset := &net.OpError{Op: "read", Err: os.NewSyscallError("read", syscall.ECONNRESET)}
	pipe := &net.OpError{Op: "write", Err: os.NewSyscallError("write", syscall.EPIPE)}
	for _, c := range []struct {
		err  error
		gone bool
	}{
		{refused, true}, {reset, true}, {pipe, true}, {io.EOF, true}, {io.ErrUnexpectedEOF, true},
		{errTimeout, false}, {errMismatch, false}, {errors.New("other"), false},
	} {
		if got := serverGone(c.err); got != c.gone {
			t.Errorf("serverGone(%v) = %v, want %v", c.err, got, c.gone)
		}
	}
	a, b := newErrorLog(), newErrorLog()
	a.add(refused)
	b.add(reset)
	b.add(errTimeout)
	m := loadresult.Merge(newRecorder().result(a), newRecorder().result(b))
	if m.Errors != 3 || m.Gone != 2 || len(m.ErrorTexts) != 3 {
		t.Fatalf("merged loops: %d errors, %d gone, %d texts; want 3, 2 and 3", m.Errors, m.Gone, len(m.ErrorTexts))
	}
}

// TestServerWentAwayMostly: the report says the server went away when
// more than half of its errors are refused, reset or closed connections.
func TestServerWentAwayMostly(t *testing.T) {
	for _, c := range []struct {
		errors, gone int64
		want         bool
	}{{7003, 6999, true}, {3, 2, true}, {2, 1, false}, {0, 0, false}, {10, 0, false}} {
		got := loadresult.Result{Errors: c.errors, Gone: c.gone}.ServerWentAway()
		if (got != "") != c.want || c.want && !strings.HasPrefix(got, "the server went away") {
			t.Errorf("%d of %d errors gone: %q", c.gone, c.errors, got)
		}
	}
}

// TestServerDiesMidRun: a server that answers 20 requests and then exits
// (its listener and connection closed) leaves errors that are all
// closed or refused connections, and the report says it went away. A
// window that closed before the 20 answers and two errors were seen (a
// loaded machine makes the round trips slow) is run again, four times
// longer, up to 19.2 s.
func TestServerDiesMidRun(t *testing.T) {
	var rep loadresult.Result
	for d := 300 * time.Millisecond; ; d *= 4 {
		rep = runDyingServer(t, d)
		if rep.Requests == 20 && rep.Errors >= 2 || d >= 19200*time.Millisecond {
			break
		}
		t.Logf("a window of %v saw %d requests and %d errors: again", d, rep.Requests, rep.Errors)
	}
	if rep.Requests != 20 || rep.Errors < 2 || rep.Gone != rep.Errors || rep.ServerWentAway() == "" {
		t.Fatalf("requests %d, errors %d (%d gone): %q %v", rep.Requests, rep.Errors, rep.Gone, rep.ServerWentAway(), rep.ErrorTexts)
	}
	onlyErrors(t, rep, "EOF", "connection refused", "connection reset by peer")
}

// runDyingServer runs one connection for the window d against a server
// that answers 20 requests and exits.
func runDyingServer(t *testing.T, d time.Duration) loadresult.Result {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		c, err := ln.Accept()
		ln.Close()
		if err != nil {
			return
		}
		echoN(20, nil)(c)
		c.Close()
	}()
	rep := runBounded(t, context.Background(), Config{Addr: ln.Addr().String(), Conns: 1, Size: 64, Duration: d, Timeout: time.Second})
	<-done
	return rep
}

// TestSweepStopSaysServerWentAway: a sweep stopped by errors that are
// mostly refused connections says the server went away.
func TestSweepStopSaysServerWentAway(t *testing.T) {
	st := Step{Result: loadresult.Result{Offered: 4000, Errors: 7003, Gone: 6999}, Verdict: Verdict{Errored: true}}
	got := stopReason(st, 1, Criteria{MaxErrors: 0.01})
	if !strings.HasPrefix(got, "errors at 4000 req/s passed 1%: the server went away (6999 of 7003 ") {
		t.Fatalf("stop: %q", got)
	}
}
