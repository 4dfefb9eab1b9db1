package load

import (
	"context"
	"io"
	"net"
	"sync/atomic"
	"testing"
	"time"

	"github.com/loopbench/loopbench/internal/measure/loadresult"
)

// loopCounts runs cfg and returns its report and the counts of its loops
// added up.
func loopCounts(t testing.TB, cfg Config) (loadresult.Result, counts) {
	t.Helper()
	var sum counts
	testHookRun = func(ws []*worker) {
		for _, w := range ws {
			sum.timers += w.counts.timers
			sum.reads += w.counts.reads
			sum.writes += w.counts.writes
		}
	}
	defer func() { testHookRun = nil }()
	rep, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	return rep, sum
}

// TestOneTimeoutTimerPerLoop: the requests' timeouts share a loop timer,
// set again about once per timeout, not once per request: 2000 answered
// requests within a 5 s timeout set a handful of timers.
func TestOneTimeoutTimerPerLoop(t *testing.T) {
	addr, _ := countingEcho(t, 0)
	rep, n := loopCounts(t, Config{Addr: addr, Conns: 4, Size: 64, Duration: time.Minute, Timeout: 5 * time.Second, Requests: 2000})
	if rep.Answered < 2000 || rep.Errors != 0 {
		t.Fatalf("%d answered, %d errors", rep.Answered, rep.Errors)
	}
	if n.timers > 100 {
		t.Errorf("%d loop timers set for %d requests", n.timers, rep.Answered)
	}
}

// TestTimeoutAmongAnswers: one connection's server side never answers
// while the others' do; the shared timer times out that request alone,
// at its deadline, and the others go on being answered.
func TestTimeoutAmongAnswers(t *testing.T) {
	var accepted atomic.Int64
	echo := echoN(0, nil)
	addr := faultServer(t, func(c net.Conn) {
		if accepted.Add(1) == 1 {
			io.Copy(io.Discard, c) // the first connection: read, never answer
			return
		}
		echo(c)
	})
	const timeout = 300 * time.Millisecond
	rep := runBounded(t, context.Background(), Config{Addr: addr, Conns: 3, Size: 64, Duration: 2 * time.Second, Timeout: timeout})
	if rep.TimedOut != 1 || rep.Errors != 1 {
		t.Fatalf("%d timed out, %d errors, want the first connection's one request: %+v", rep.TimedOut, rep.Errors, rep.ErrorTexts)
	}
	onlyErrors(t, rep, "timeout")
	if rep.Answered < 10 {
		t.Errorf("%d answered: the other connections stopped", rep.Answered)
	}
	if max := time.Duration(rep.UncorrectedHist.Max()); max < timeout {
		t.Errorf("the timed-out request is recorded at %v, under the timeout %v", max, timeout)
	}
}

// BenchmarkRequestCost runs a closed loop of b.N requests over 10
// connections of 1 KiB to an in-process echo server and reports what a
// request costs the generator in counts, which the machine's load does
// not move: allocations (process-wide, the server's included, the run's
// setup spread over b.N), and the loop's reads, writes and timers set
// per request.
func BenchmarkRequestCost(b *testing.B) {
	addr := faultServer(b, copyEcho)
	requestCost(b, Config{Addr: addr, Conns: 10, Size: 1024, Duration: time.Hour, Timeout: 10 * time.Second})
}

// requestCost runs cfg for b.N requests and reports their cost in counts.
func requestCost(b *testing.B, cfg Config) {
	b.ReportAllocs()
	b.ResetTimer()
	cfg.Requests = int64(b.N)
	rep, n := loopCounts(b, cfg)
	if rep.Errors != 0 {
		b.Fatalf("%d errors: %v", rep.Errors, rep.ErrorTexts)
	}
	per := func(v int64) float64 { return float64(v) / float64(rep.Answered) }
	b.ReportMetric(per(n.reads), "reads/op")
	b.ReportMetric(per(n.writes), "writes/op")
	b.ReportMetric(per(n.timers), "timers/op")
}
