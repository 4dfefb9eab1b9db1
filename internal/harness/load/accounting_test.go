package load

import (
	"context"
	"io"
	"net"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/loopbench/loopbench/internal/measure/loadresult"
)

// countingEcho echoes 64-byte requests and counts the requests it read.
func countingEcho(t *testing.T, delay time.Duration) (addr string, read *atomic.Int64) {
	read = new(atomic.Int64)
	addr = faultServer(t, func(c net.Conn) {
		buf := make([]byte, 64)
		for {
			if _, err := io.ReadFull(c, buf); err != nil {
				return
			}
			read.Add(1)
			if delay > 0 {
				time.Sleep(delay)
			}
			if _, err := c.Write(buf); err != nil {
				return
			}
		}
	})
	return addr, read
}

// TestLimitRefusedAnswersCounted: at a request limit, the answers to the
// other connections' requests in flight come after the limit was
// reached; they are counted (answered) all the same, so the requests the
// server read are the run's scheduled ones, and scheduled = answered +
// unsent + errors holds. Requests, the arrivals, stay at the limit.
func TestLimitRefusedAnswersCounted(t *testing.T) {
	addr, read := countingEcho(t, 0)
	rep := runBounded(t, context.Background(), Config{Addr: addr, Conns: 4, Size: 64, Duration: 20 * time.Second, Timeout: 5 * time.Second, Requests: 200})
	if rep.Requests != 200 {
		t.Fatalf("%d requests, want the limit, 200", rep.Requests)
	}
	if n := read.Load(); rep.Scheduled != n {
		t.Errorf("%d scheduled, the server read %d requests", rep.Scheduled, n)
	}
	if sum := rep.Answered + rep.Unsent + rep.Errors; rep.Scheduled != sum || rep.Errors != 0 {
		t.Errorf("%d scheduled, %d answered + %d unsent + %d errors = %d", rep.Scheduled, rep.Answered, rep.Unsent, rep.Errors, sum)
	}
	if n := rep.CorrectedHist.TotalCount(); n != rep.Answered {
		t.Errorf("%d latencies recorded, %d answered", n, rep.Answered)
	}
}

// TestRedialNotInLatency: after a server's close, the next request dials
// again, and the dial (slowed to 1.5 s here) is not in that request's
// uncorrected latency, nor in its 1 s timeout: no request times out and
// none took as long as a dial.
func TestRedialNotInLatency(t *testing.T) {
	const dialTime = 1500 * time.Millisecond
	addr := faultServer(t, echoN(1, nil)) // one answer per connection
	var dials atomic.Int64
	dial := func(a string) (net.Conn, error) {
		if dials.Add(1) > 1 {
			time.Sleep(dialTime)
		}
		return net.Dial("tcp", a)
	}
	rep := runBounded(t, context.Background(), Config{Addr: addr, Conns: 1, Size: 64, Duration: 20 * time.Second, Timeout: time.Second, Requests: 3, Dial: dial})
	if rep.Requests != 3 || rep.TimedOut != 0 {
		t.Fatalf("%d requests, %d timed out %v: the dial ate the timeout", rep.Requests, rep.TimedOut, rep.ErrorTexts)
	}
	if rep.Uncorrected.Max >= dialTime {
		t.Errorf("uncorrected max %v: a dial of %v is in it", rep.Uncorrected.Max, dialTime)
	}
	if n := dials.Load(); n < 3 {
		t.Errorf("%d dials, want one per answer", n)
	}
}

// TestRecordersPerLoop: a run's histograms are one set per loop, not one
// per connection: a run of 300 connections allocates far less than 300
// sets of three histograms (about 200 MB), under 64 KiB per connection
// all told (its server's side included).
func TestRecordersPerLoop(t *testing.T) {
	addr, _ := countingEcho(t, 0)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	rep := runBounded(t, context.Background(), Config{Addr: addr, Conns: 300, Size: 64, Rate: 3000, Duration: 100 * time.Millisecond, Timeout: 5 * time.Second})
	runtime.ReadMemStats(&after)
	if rep.Scheduled != 300 {
		t.Fatalf("%d scheduled, want 300", rep.Scheduled)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 300*64<<10 {
		t.Fatalf("a run of 300 connections allocated %d KiB, %d KiB per connection", alloc>>10, alloc/300>>10)
	}
}

// TestConnectionBound: a server that holds every answer 50 ms, asked for
// 200 req/s over 2 connections, answers at most 40 req/s: every
// connection is busy (rate × latency = 2), the server answers as fast as
// ever, and the run is connection-bound, not the server's failure. Over
// 10 connections at 20 req/s one connection is busy on average: not
// connection-bound. Little's law holds whatever the machine's load.
func TestConnectionBound(t *testing.T) {
	addr, _ := countingEcho(t, 50*time.Millisecond)
	c := Criteria{SLO: time.Second, MaxErrors: 0.01}
	for _, tc := range []struct {
		conns int
		rate  float64
		bound bool
	}{{2, 200, true}, {10, 20, false}} {
		rep := runBounded(t, context.Background(), Config{Addr: addr, Conns: tc.conns, Size: 64, Rate: tc.rate, Duration: time.Second, Timeout: 5 * time.Second})
		v := c.Judge(FiguresOf(rep, 0))
		// A loaded machine may make the generator late too: only the
		// connection-bound verdict is asserted either way.
		if v.ConnBound != tc.bound || tc.bound && !v.GeneratorLimited() {
			t.Errorf("%d conns at %.0f req/s: concurrency %.2f, verdict %v; want connection-bound %v", tc.conns, tc.rate, rep.Concurrency(), v, tc.bound)
		}
	}
}

// TestBehindOneThreshold: a run is behind where a sweep step is, below
// MinAchieved of the offered rate (a run used to be behind only below
// 95 %).
func TestBehindOneThreshold(t *testing.T) {
	for _, c := range []struct {
		arrived int64
		behind  bool
	}{{970, true}, {989, true}, {990, false}, {1000, false}} {
		w := &worker{rec: newRecorder(), errs: newErrorLog()}
		w.rec.arrived = c.arrived
		t0 := time.Unix(0, 0)
		rep := (&shared{cfg: Config{Rate: 1000}, ws: []*worker{w}}).result(loadresult.Result{}, t0, t0.Add(time.Second), time.Second, 0)
		if step := (Criteria{SLO: time.Second}).Judge(FiguresOf(rep, 0)); rep.Behind != c.behind || step.Behind != c.behind {
			t.Errorf("%.0f of 1000 req/s: run behind %v, step behind %v; want %v", rep.Achieved, rep.Behind, step.Behind, c.behind)
		}
	}
}
