package load

import (
	"context"
	"io"
	"net"
	"sync/atomic"
	"testing"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/loopbench/loopbench/internal/measure/loadresult"
)

// countAtLeast counts the values of h at or above v.
func countAtLeast(h *hdrhistogram.Histogram, v time.Duration) int64 {
	var n int64
	for _, b := range h.Distribution() {
		if b.From >= int64(v) {
			n += b.Count
		}
	}
	return n
}

// checkAccounting fails unless the window's requests are exactly the
// schedule's (rate × duration, for a window of whole intervals) and each
// is answered, timed out, failed or unsent, the recorded ones once each.
func checkAccounting(t *testing.T, cfg Config, rep loadresult.Result) {
	t.Helper()
	if want := int64(cfg.Rate * cfg.Duration.Seconds()); rep.Scheduled != want {
		t.Errorf("%d requests accounted for (%d answered, %d unsent, %d errors), %d scheduled in the window",
			rep.Scheduled, rep.Answered, rep.Unsent, rep.Errors, want)
	}
	if !rep.Balanced() {
		t.Errorf("scheduled %d, want answered %d + timed out %d + unsent %d + other errors %d", rep.Scheduled, rep.Answered, rep.TimedOut, rep.Unsent, rep.Errors-rep.TimedOut)
	}
	if n := rep.CorrectedHist.TotalCount(); n != rep.Answered+rep.TimedOut+rep.Unsent {
		t.Errorf("the corrected histogram holds %d latencies, want %d answered + %d timed out + %d unsent", n, rep.Answered, rep.TimedOut, rep.Unsent)
	}
}

// TestStallOnceCompleteTail: a server that holds every answer for 100 ms
// once, from its 200th request (in the window), with a 50 ms timeout: the
// requests that timed out are in the histograms at their time to the
// timeout, the stall is in the corrected p99.9 and max, and every request
// scheduled in the window is accounted for once.
func TestStallOnceCompleteTail(t *testing.T) {
	var seen, until atomic.Int64
	addr := faultServer(t, func(c net.Conn) {
		buf := make([]byte, 64)
		for {
			if _, err := io.ReadFull(c, buf); err != nil {
				return
			}
			if seen.Add(1) == 200 {
				until.Store(time.Now().Add(100 * time.Millisecond).UnixNano())
			}
			if d := time.Until(time.Unix(0, until.Load())); d > 0 {
				time.Sleep(d)
			}
			if _, err := c.Write(buf); err != nil {
				return
			}
		}
	})
	cfg := Config{Addr: addr, Conns: 2, Size: 64, Rate: 400, Warmup: 100 * time.Millisecond, Duration: time.Second, Timeout: 50 * time.Millisecond}
	rep := runBounded(t, context.Background(), cfg)
	checkAccounting(t, cfg, rep)
	if rep.TimedOut < 1 || rep.Errors != rep.TimedOut {
		t.Errorf("%d timed out, %d errors %v: want timeouts and no other error", rep.TimedOut, rep.Errors, rep.ErrorTexts)
	}
	if n := countAtLeast(rep.UncorrectedHist, cfg.Timeout); n < rep.TimedOut {
		t.Errorf("%d uncorrected latencies of the timeout or more, %d timed out", n, rep.TimedOut)
	}
	if rep.Corrected.P999 < 90*time.Millisecond || rep.Corrected.Max < 90*time.Millisecond {
		t.Errorf("corrected p99.9 %v, max %v: the 100 ms stall is not in the tail", rep.Corrected.P999, rep.Corrected.Max)
	}
}

// TestUnsentRecorded: a server three times slower than the rate leaves
// requests unsent when the window closes; they are recorded at their
// lateness then, and counted.
func TestUnsentRecorded(t *testing.T) {
	addr := faultServer(t, echoN(0, func() { time.Sleep(30 * time.Millisecond) }))
	cfg := Config{Addr: addr, Conns: 1, Size: 64, Rate: 100, Duration: 500 * time.Millisecond, Timeout: 5 * time.Second}
	rep := runBounded(t, context.Background(), cfg)
	checkAccounting(t, cfg, rep)
	if rep.Unsent == 0 || rep.Errors != 0 {
		t.Fatalf("%d unsent, %d errors: want unsent requests and no error", rep.Unsent, rep.Errors)
	}
	if rep.Corrected.Max < 200*time.Millisecond {
		t.Errorf("corrected max %v: the backlog is not in the tail", rep.Corrected.Max)
	}
}

// TestErrorsInWindowOnly: a server that closes the connection on its
// first five requests and echoes the rest: with the failures in the
// warmup the run has no error; without a warmup it has five, of the
// window's requests.
func TestErrorsInWindowOnly(t *testing.T) {
	for _, c := range []struct {
		warmup time.Duration
		errors int64
	}{{200 * time.Millisecond, 0}, {0, 5}} {
		var seen atomic.Int64
		addr := faultServer(t, func(c net.Conn) {
			buf := make([]byte, 64)
			for {
				if _, err := io.ReadFull(c, buf); err != nil || seen.Add(1) <= 5 {
					return
				}
				if _, err := c.Write(buf); err != nil {
					return
				}
			}
		})
		cfg := Config{Addr: addr, Conns: 1, Size: 64, Rate: 200, Warmup: c.warmup, Duration: 500 * time.Millisecond, Timeout: 5 * time.Second}
		rep := runBounded(t, context.Background(), cfg)
		checkAccounting(t, cfg, rep)
		if rep.Errors != c.errors || rep.ErrorRate() != float64(c.errors)/100 {
			t.Errorf("warmup %v: %d errors, rate %v; want %d of 100", c.warmup, rep.Errors, rep.ErrorRate(), c.errors)
		}
	}
}

// TestOverflowRecordedAtTop: a latency beyond the histogram's 60 s is
// recorded as 60 s and counted, in its interval's histogram too.
func TestOverflowRecordedAtTop(t *testing.T) {
	r := newRecorder()
	r.series = newSeries(0, time.Second, time.Second)
	r.answer(0, 61*time.Second, time.Millisecond)
	r.answer(0, time.Millisecond, time.Millisecond)
	if r.overflow != 1 || r.corrected.TotalCount() != 2 || time.Duration(r.corrected.Max()) < 59*time.Second {
		t.Fatalf("overflow %d, %d recorded, max %v", r.overflow, r.corrected.TotalCount(), time.Duration(r.corrected.Max()))
	}
	if h := r.series.hists[0]; h.TotalCount() != 2 || time.Duration(h.Max()) < 59*time.Second || r.series.answered[0] != 2 {
		t.Fatalf("interval: %d recorded, max %v, %d answered", h.TotalCount(), time.Duration(h.Max()), r.series.answered[0])
	}
}
