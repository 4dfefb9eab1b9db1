package load

import (
	"context"
	"io"
	"math"
	"net"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"
)

// capacityServer is an echo server of known capacity, 1/service requests
// per second, over in-memory pipes: it serves one request at a time, for
// service each, in the order they arrive. Each answer leaves at the later
// of its request's arrival and the previous answer's departure, plus
// service. dial opens a connection to it; each connection's goroutine
// ends when the connection closes.
func capacityServer(service time.Duration) (dial func(string) (net.Conn, error)) {
	var mu sync.Mutex
	var free time.Time
	return func(string) (net.Conn, error) {
		client, server := net.Pipe()
		go func() {
			defer server.Close()
			buf := make([]byte, 64)
			for {
				if _, err := io.ReadFull(server, buf); err != nil {
					return
				}
				mu.Lock()
				depart := later(time.Now(), free).Add(service)
				free = depart
				mu.Unlock()
				time.Sleep(time.Until(depart))
				if _, err := server.Write(buf); err != nil {
					return
				}
			}
		}()
		return client, nil
	}
}

// TestSweepKneeAtCapacity: a sweep across a 1000 req/s server's capacity,
// in steps of 3 % from 800 req/s, finds its knee within 10 % of it and
// stops after the two steps past it, by the default criteria. The sweep
// runs in a synctest bubble: the generator waits (Config.wait) and the
// server serves in virtual time, over in-memory pipes, so the machine's
// load cannot move the knee; the pacing itself is tested on TCP
// elsewhere (and benchmarked: BenchmarkPacing).
func TestSweepKneeAtCapacity(t *testing.T) {
	const capacity = 1000.0
	synctest.Test(t, func(t *testing.T) {
		rates, err := ParseRates("800:1300:x1.03")
		if err != nil {
			t.Fatal(err)
		}
		sc := SweepConfig{
			Run: Config{Addr: "capacity", Conns: 4, Size: 64, Warmup: 500 * time.Millisecond, Duration: 2 * time.Second, Timeout: time.Second,
				Dial: capacityServer(time.Duration(float64(time.Second) / capacity)), wait: time.Sleep},
			Rates:    rates,
			Criteria: Criteria{SLO: 10 * time.Millisecond, MaxErrors: 0.01},
		}
		sw, err := RunSweep(context.Background(), sc, func(s Step) {
			t.Logf("%.0f req/s offered: %.0f achieved, p99 %v: %v", s.Report.Offered, s.Report.Achieved, s.Report.Corrected.P99, s.Verdict)
		})
		if err != nil {
			t.Fatal(err)
		}
		k := sw.Knee
		if k.Step < 0 || k.LowerBound || math.Abs(k.Rate-capacity) > 0.1*capacity {
			t.Fatalf("%v; want within 10 %% of %.0f req/s", k, capacity)
		}
		last := sw.Steps[len(sw.Steps)-1]
		if !strings.Contains(sw.Stop, "two steps in a row") || last.Report.Offered < capacity || last.Verdict.Met() || sw.Steps[len(sw.Steps)-2].Verdict.Met() {
			t.Fatalf("stopped at %.0f req/s: %q; want after two steps past capacity", last.Report.Offered, sw.Stop)
		}
	})
}
