package load

import (
	"context"
	"io"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/loopbench/loopbench/internal/measure/loadresult"
)

// capacityServer is an echo server of known capacity, 1/service requests
// per second, on loopback TCP: it serves one request at a time, for
// service each, in the order they arrive. Each answer leaves at the later
// of its request's arrival and the previous answer's departure, plus
// service, so a late wake-up of the server does not lower its capacity.
func capacityServer(t *testing.T, service time.Duration) string {
	var mu sync.Mutex
	var free time.Time
	return faultServer(t, func(c net.Conn) {
		buf := make([]byte, 64)
		for {
			if _, err := io.ReadFull(c, buf); err != nil {
				return
			}
			mu.Lock()
			depart := time.Now()
			if free.After(depart) {
				depart = free
			}
			depart = depart.Add(service)
			free = depart
			mu.Unlock()
			time.Sleep(time.Until(depart))
			if _, err := c.Write(buf); err != nil {
				return
			}
		}
	})
}

// TestSweepKneeAtCapacity: a sweep across a 100 req/s server's capacity
// finds its knee at the highest step at or below it (90 req/s) and stops
// after the two steps past it, by the default criteria. The steps are
// far apart, so that a loaded machine cannot move the knee: the server
// keeps its capacity when its sleeps wake late (its departures are
// scheduled, not slept one after the other; a late read costs it
// capacity only while it is idle, which at 90 req/s leaves it 10 % to
// lose), each window holds at least 200 requests (the one or two at its
// edges stay within the 1 % a step may fall short), and the SLO of 1 s
// (a generator late by 100 ms at p99) is far above what wake-ups add.
// Past capacity every connection waits on the server's queue, whose p50
// (8 connections: 80 ms) must stay above twice the first step's (10 ms
// of service, and what wake-ups add to it), or the step counts as
// connection-bound (Figures.ConnBound) and the knee as a lower bound. A
// sweep that a stall of the machine spoiled anyway is run again, three
// times at most.
func TestSweepKneeAtCapacity(t *testing.T) {
	const capacity = 100.0
	sc := SweepConfig{
		Run: Config{Addr: capacityServer(t, time.Duration(float64(time.Second)/capacity)), Conns: 8, Size: 64,
			Warmup: 500 * time.Millisecond, Duration: 4 * time.Second, Timeout: 3 * time.Second},
		Rates:    []float64{50, 70, 90, 130, 170, 220},
		Criteria: Criteria{SLO: time.Second, MaxErrors: 0.01},
	}
	var sw Sweep
	for attempt := range 3 {
		var err error
		sw, err = RunSweep(context.Background(), sc, func(s Step) {
			t.Logf("%.0f req/s offered: %.0f achieved, p99 %v, uncorrected p50 %v, pacing lag p99 %v: %v", s.Result.Offered, s.Result.Achieved, s.Result.Corrected.P99, s.Result.Uncorrected.P50, s.Result.PacingLag.P99, s.Verdict)
		})
		if err != nil {
			t.Fatal(err)
		}
		if sw.Knee.Rate == 90 && !sw.Knee.LowerBound {
			break
		}
		t.Logf("attempt %d: %v", attempt+1, sw.Knee)
	}
	if k := sw.Knee; k.Rate != 90 || k.LowerBound {
		t.Fatalf("%v; want 90 req/s, the highest step at or below the capacity, %.0f req/s", k, capacity)
	}
	last := sw.Steps[len(sw.Steps)-1]
	if !strings.Contains(sw.Stop, "two steps in a row") || last.Result.Offered != 170 || last.Verdict.Met() || sw.Steps[len(sw.Steps)-2].Verdict.Met() {
		t.Fatalf("stopped at %.0f req/s: %q; want after the two steps past capacity", last.Result.Offered, sw.Stop)
	}
}

// TestSweepCPUBoundPerLoop: a step where the generator's one loop kept
// 0.98 cores busy, on a machine of 2 usable CPUs (far from 90 % of
// them), is CPU-bound: judged against the one CPU a loop can use, it is
// a generator limit, left out of the knee, not a server over its SLO
// that the knee would be placed below. The figures are injected.
func TestSweepCPUBoundPerLoop(t *testing.T) {
	sc := SweepConfig{Run: Config{Addr: "198.18.0.1:9", Conns: 4, Size: 64, Duration: time.Second}, Rates: []float64{1000, 2000, 4000},
		Criteria: Criteria{SLO: time.Millisecond, MaxErrors: 0.01}, CPUs: 2}
	sc.run = func(_ context.Context, cfg Config) (loadresult.Result, error) {
		cores, p99 := 0.3, 200*time.Microsecond
		if cfg.Rate > 1000 {
			cores, p99 = 0.98, 5*time.Millisecond // the loop's CPU, not the server, held the answers back
		}
		r := synth(t, "g", t0, time.Second, []int64{int64(p99 / 2000), int64(p99 / 1000)}, 0)
		r.Offered, r.Achieved, r.Loops = cfg.Rate, cfg.Rate, 1
		r.CPU = time.Duration(cores * float64(r.Wall))
		return r, nil
	}
	sw, err := RunSweep(context.Background(), sc, nil)
	if err != nil || len(sw.Steps) != 3 {
		t.Fatalf("%d steps, %v", len(sw.Steps), err)
	}
	for i, want := range []string{"met", "over SLO, generator CPU-bound", "over SLO, generator CPU-bound"} {
		if got := sw.Steps[i].Verdict.String(); got != want {
			t.Errorf("step %d: %q, want %q", i+1, got, want)
		}
	}
	if k := sw.Knee; k.Rate != 1000 || !k.LowerBound || !strings.Contains(k.Note, "CPU-bound at 2000 req/s") {
		t.Errorf("knee %v: want at least 1000 req/s, the generator CPU-bound at 2000", k)
	}
}
