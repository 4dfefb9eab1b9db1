package load

import (
	"bytes"
	"fmt"
	"net"
	"os"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/loopbench/loopbench/internal/measure/loadresult"
)

// TestWarnCPUBoundPerLoop: the CPU-bound warning holds a run against the
// CPUs its loops can use: one loop at 0.94 cores is CPU-bound however
// many CPUs the machine has; two loops at 0.94 cores are not. The
// figures are injected.
func TestWarnCPUBoundPerLoop(t *testing.T) {
	for _, c := range []struct {
		loops int
		want  string // "" no warning
	}{
		{1, "loopbench load: warning: the generator kept 0.94 cores busy of the 1 CPU its 1 loop can use (16 usable): a client this busy measures itself; add generators on other hosts (loopbench merge)\n"},
		{2, ""},
	} {
		rep := loadresult.Result{CPUs: 16, Loops: c.loops, Conns: 4, Wall: time.Second, CPU: 940 * time.Millisecond}
		var b bytes.Buffer
		WarnRun(&b, rep, false)
		if b.String() != c.want {
			t.Errorf("%d loops: %q, want %q", c.loops, b.String(), c.want)
		}
	}
}

// behindRun is an injected run that fell far behind: 1 connection
// offered 50000 req/s, kept busy by answers of 52 µs, achieving 19230.
func behindRun() loadresult.Result {
	h := loadresult.NewHistogram()
	h.RecordValues(52_000, 100)
	r := loadresult.Result{Label: "x", Addr: "198.18.0.1:9000", Conns: 1, Size: 64, CPUs: 2, Loops: 1, Offered: 50000, Achieved: 19230,
		Requests: 38459, Scheduled: 100000, Answered: 32899, Unsent: 67101, Elapsed: 2 * time.Second, Duration: 2 * time.Second,
		Wall: 2 * time.Second, CPU: time.Second, CorrectedHist: h, UncorrectedHist: h, PacingLagHist: loadresult.NewHistogram()}
	r.Summarize()
	return r
}

// TestCheckRunsFellBehind: a run below 90 % of its offered rate fails
// with one line giving the achieved rate, the unsent requests and what
// limited it; at 95 %, or in closed loop, it passes. The table counts the
// window's requests once. The figures are injected.
func TestCheckRunsFellBehind(t *testing.T) {
	f := RunLimits{Count: 1, MaxErrors: 0.01}
	r := behindRun()
	err := CheckRuns([]loadresult.Result{r}, f)
	want := "fell behind: 19230 of 50000 req/s offered achieved (38%, below 90%), 67101 of the window's 100000 requests unsent: the connections limited it (1 connection, busy 1.00 on average, one request outstanding on each); raise -conns"
	if err == nil || err.Error() != want {
		t.Fatalf("%v\nwant %s", err, want)
	}
	var b bytes.Buffer
	WarnRun(&b, r, false)
	if b.Len() != 0 {
		t.Errorf("warnings beside the failure that names the cause: %q", b.String())
	}
	r.WriteText(&b)
	if n := strings.Count(b.String(), "requests"); n != 1 || !strings.Contains(b.String(), "the window's 100000 requests = 32899 answered + 0 timed out + 0 failed otherwise + 67101 unsent, 0 errors\n") {
		t.Errorf("%d counts of requests in the table:\n%s", n, b.String())
	}
	r.Achieved = 0.95 * r.Offered
	if err := CheckRuns([]loadresult.Result{r}, f); err != nil {
		t.Errorf("at 95 %% of the offered rate: %v", err)
	}
	r.Offered, r.Achieved = 0, 100
	if err := CheckRuns([]loadresult.Result{r}, f); err != nil {
		t.Errorf("closed loop: %v", err)
	}
}

// TestLagCauseLeavesSpinOut: a generator that sent late with all its
// CPUs busy is CPU-bound, but not when most of that was -spin's polling:
// then it woke late or lost its CPU, and the line says the spinning was
// left out.
func TestLagCauseLeavesSpinOut(t *testing.T) {
	wall := time.Second
	rep := loadresult.Result{Wall: wall, CPU: 2 * wall, CPUs: 2, Loops: 2}
	if got := lagCause(rep, true); !strings.Contains(got, "cannot keep the schedule") {
		t.Errorf("every CPU busy with work: %q", got)
	}
	rep.Spin = rep.CPU * 6 / 10
	if got := lagCause(rep, true); strings.Contains(got, "cannot keep the schedule") || !strings.Contains(got, "spinning left out") {
		t.Errorf("60 %% of it spinning: %q", got)
	}
}

// TestLoadPlurals: load's, sweep's and merge's lines count one of a
// thing in the singular.
func TestLoadPlurals(t *testing.T) {
	r := behindRun()
	r.Scheduled, r.Answered, r.Unsent, r.Errors, r.TimedOut = 1, 0, 0, 1, 1
	r.ErrorTexts = []loadresult.ErrorCount{{Text: "read: i/o timeout", Count: 1}}
	var b bytes.Buffer
	r.WriteText(&b)
	WarnRun(&b, r, false)
	b.WriteString(ErrorsWhy(r) + "\n")
	m, _ := loadresult.MergeGenerators([]loadresult.Result{r})
	loadresult.WriteMergedTable(&b, m)
	r.CPU = r.Wall
	b.WriteString(r.CPUBusy() + "\n")
	plural := regexp.MustCompile(`\b1 (connections|CPUs|generators|steps|requests|errors|loops|runs)\b`)
	if bad := plural.FindAllString(b.String(), -1); len(bad) > 0 || !strings.Contains(b.String(), "1 generator: ") {
		t.Errorf("%q in:\n%s", bad, b.String())
	}
}

// TestNoAnswerTypedTimeouts: a run in which no answer came and every
// error was a deadline passing says that load speaks an echo protocol,
// whatever the errors' text says: the check reads the typed count
// (Expired, counted by errors.Is), never the text. A run whose errors are
// not all deadlines, or that has an answer, does not say it.
func TestNoAnswerTypedTimeouts(t *testing.T) {
	const want = "no answer came from 198.18.0.1:9000: " + echoProtocol + ", and it echoed nothing"
	for _, c := range []struct {
		name                      string
		answered, errors, expired int64
		texts                     []loadresult.ErrorCount
		want                      string
	}{
		{"timeouts as errorText names them", 0, 4, 4, []loadresult.ErrorCount{{Text: "read: i/o timeout", Count: 4}}, want},
		{"timeouts reworded", 0, 4, 4, []loadresult.ErrorCount{{Text: "request timed out after 200ms", Count: 4}}, want},
		{"a dial timed out too", 0, 4, 4, []loadresult.ErrorCount{{Text: "read: i/o timeout", Count: 3}, {Text: "dial: i/o timeout", Count: 1}}, want},
		{"timeouts among resets", 0, 4, 3, []loadresult.ErrorCount{{Text: "read: i/o timeout", Count: 3}, {Text: "connection reset by peer", Count: 1}}, ""},
		{"an answer came", 1, 4, 4, []loadresult.ErrorCount{{Text: "read: i/o timeout", Count: 4}}, ""},
		{"no error", 0, 0, 0, nil, ""},
	} {
		rep := loadresult.Result{Addr: "198.18.0.1:9000", Answered: c.answered, Errors: c.errors, Expired: c.expired, ErrorTexts: c.texts}
		if got := notEcho(rep); got != c.want {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
}

// TestNotEchoTyped: answers that were not their request's echo are told
// by the typed count (Mismatched), whatever the errors' text says; an
// HTTP run is never told it.
func TestNotEchoTyped(t *testing.T) {
	const want = "198.18.0.1:9000 answered with bytes that are not the echo of the request: " + echoProtocol
	for _, c := range []struct {
		mismatched int64
		text       string
		proto      string
		want       string
	}{
		{2, NotEchoText, "", want},
		{2, "answer differs from its request", "", want},
		{0, NotEchoText, "", ""},
		{2, NotEchoText, "http", ""},
	} {
		rep := loadresult.Result{Addr: "198.18.0.1:9000", Answered: 3, Errors: 2, Mismatched: c.mismatched, Proto: c.proto,
			ErrorTexts: []loadresult.ErrorCount{{Text: c.text, Count: 2}}}
		if got := notEcho(rep); got != c.want {
			t.Errorf("%d mismatched, %q, proto %q: %q, want %q", c.mismatched, c.text, c.proto, got, c.want)
		}
	}
}

// TestErrorLogExpired: the error log counts as expired the errors that
// are a deadline passing (errors.Is os.ErrDeadlineExceeded), a request's
// timeout or a dial's, and no other; and as mismatched the answers that
// were not their request's echo.
func TestErrorLogExpired(t *testing.T) {
	l := newErrorLog()
	dial := &net.OpError{Op: "dial", Net: "tcp", Err: os.ErrDeadlineExceeded}
	for _, err := range []error{errTimeout, dial, syscall.ECONNRESET, errMismatch, fmt.Errorf("step: %w", errTimeout)} {
		l.add(err)
	}
	if total, _ := l.counts(); total != 5 || l.expired != 3 || l.gone != 1 || l.mismatched != 1 {
		t.Errorf("%d errors, %d expired, %d gone, %d mismatched; want 5, 3, 1 and 1", total, l.expired, l.gone, l.mismatched)
	}
}
