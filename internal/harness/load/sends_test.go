package load

import (
	"fmt"
	"testing"
	"time"

	"github.com/loopbench/loopbench/internal/measure/loadresult"
)

// checkAccounts checks the identity scheduled = answered + unsent +
// errors (timeouts are errors) and that every request sent has its
// pacing lag recorded, from its intended time.
func checkAccounts(t *testing.T, rep loadresult.Result) {
	t.Helper()
	if sum := rep.Answered + rep.Unsent + rep.Errors; rep.Scheduled != sum {
		t.Errorf("%d scheduled, %d answered + %d unsent + %d errors (%d timed out) = %d", rep.Scheduled, rep.Answered, rep.Unsent, rep.Errors, rep.TimedOut, sum)
	}
	if n := rep.PacingLagHist.TotalCount(); n != rep.Answered+rep.TimedOut {
		t.Errorf("%d pacing lags recorded, %d requests sent (%d answered, %d timed out)", n, rep.Answered+rep.TimedOut, rep.Answered, rep.TimedOut)
	}
}

// TestOneSendTimerPerLoop: an open loop's sends share a loop timer or
// spin, not one timer per request. At 2000 requests/s over 10
// connections, each connection's next send is 5 ms away when its answer
// is in, but the loop's next send is never more than 0.5 ms away: with a
// 1 ms Spin the loop spins from one send to the next, and 1000 requests
// set no timer for their sends (a handful for the window and timeouts).
func TestOneSendTimerPerLoop(t *testing.T) {
	addr, read := countingEcho(t, 0)
	const n = 1000
	rep, c := loopCounts(t, Config{Addr: addr, Conns: 10, Size: 64, Rate: 2000, Duration: time.Minute, Timeout: 5 * time.Second, Requests: n, Spin: time.Millisecond})
	if rep.Requests != n || rep.Errors != 0 {
		t.Fatalf("%d requests, %d errors: %v", rep.Requests, rep.Errors, rep.ErrorTexts)
	}
	checkAccounts(t, rep)
	if got := read.Load(); got != rep.Scheduled-rep.Unsent {
		t.Errorf("%d scheduled, %d unsent, the server read %d", rep.Scheduled, rep.Unsent, got)
	}
	if rep.Spin <= 0 {
		t.Errorf("spin %v with -spin", rep.Spin)
	}
	t.Logf("%d loop timers set for %d scheduled", c.timers, rep.Scheduled)
	if c.timers > n/10 {
		t.Errorf("%d loop timers set for %d requests, want at most %d", c.timers, rep.Scheduled, n/10)
	}
}

// TestLateSendsKeepSchedule: connections busy past their send times (a
// server answering in 20 ms, a connection's interval 5 ms) send each
// next request as soon as they are free, its latency counted from its
// intended time (the second one's at least 35 ms: intended by 7.5 ms,
// answered after two 20 ms answers), and the requests not sent by the
// window's end are counted unsent; no send timer is set.
func TestLateSendsKeepSchedule(t *testing.T) {
	addr, _ := countingEcho(t, 20*time.Millisecond)
	rep, c := loopCounts(t, Config{Addr: addr, Conns: 2, Size: 64, Rate: 400, Duration: 200 * time.Millisecond, Timeout: 5 * time.Second})
	if rep.Errors != 0 {
		t.Fatalf("%d errors: %v", rep.Errors, rep.ErrorTexts)
	}
	checkAccounts(t, rep)
	if rep.Unsent < 40 {
		t.Errorf("%d unsent of %d scheduled: want the most of 80, at one send per 20 ms", rep.Unsent, rep.Scheduled)
	}
	if lat := time.Duration(rep.CorrectedHist.Max()); lat < 30*time.Millisecond {
		t.Errorf("latency at most %v, want 30ms or more", lat)
	}
	t.Logf("%d loop timers set for %d scheduled", c.timers, rep.Scheduled)
	if c.timers > 10 {
		t.Errorf("%d loop timers set, want a handful (window, timeouts)", c.timers)
	}
}

// BenchmarkOpenRequestCost is BenchmarkRequestCost for an open loop at
// 20,000 requests/s over 10 connections (a send every 50 µs, each
// connection's every 500 µs), without and with a 100 µs Spin. It runs
// b.N/20,000 s whatever the machine. Unlike its other counts, timers/op
// moves with the machine's load: sends due by the time the loop gets to
// them go out on one firing of the send timer, and a connection still
// busy at its send time sends late without one.
func BenchmarkOpenRequestCost(b *testing.B) {
	addr := faultServer(b, copyEcho)
	for _, spin := range []time.Duration{0, 100 * time.Microsecond} {
		b.Run(fmt.Sprintf("spin=%v", spin), func(b *testing.B) {
			requestCost(b, Config{Addr: addr, Conns: 10, Size: 1024, Rate: 20000, Duration: time.Hour, Timeout: 10 * time.Second, Spin: spin})
		})
	}
}
