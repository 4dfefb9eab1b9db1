package bench

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/loopbench/loopbench"
)

var loopbenchDefault = loopbench.Config{}

// TestPendingNeverFireSilently: when the pending timers of a best case
// fall due during a measurement (here: deadlines of 1 ms, past before the
// run starts), the measurement fails with ErrPendingFired instead of
// timing their firing.
func TestPendingNeverFireSilently(t *testing.T) {
	saved := delays
	short := make([]time.Duration, len(saved))
	for i := range short {
		short[i] = time.Millisecond
	}
	delays = short
	defer func() { delays = saved }()
	for _, c := range Cases(Options{Workloads: []string{"Timers"}, Quick: true}) {
		if !strings.Contains(c.Params, "op=schedule-cancel") || !strings.HasPrefix(c.Variant, "ready=") {
			continue
		}
		run, cleanup, err := c.Setup()
		if err != nil {
			t.Fatal(err)
		}
		time.Sleep(5 * time.Millisecond)
		_, err = Measure(run, time.Nanosecond)
		if cleanup != nil {
			cleanup()
		}
		if !errors.Is(err, ErrPendingFired) {
			t.Fatalf("%s: %v, want ErrPendingFired", c.Name(), err)
		}
		return
	}
	t.Fatal("no schedule-cancel case on a loop")
}

// TestPendingOutlastMeasurements: the pending timers' deadlines are a
// minute or more ahead, beyond any measurement at a usual -benchtime.
func TestPendingOutlastMeasurements(t *testing.T) {
	for i := range delays {
		if delays[i] < MinDelay {
			t.Fatalf("delay %d is %v, under MinDelay %v", i, delays[i], MinDelay)
		}
	}
	if MinDelay < time.Minute {
		t.Fatalf("MinDelay %v: a 1 s -benchtime plus setup can reach it", MinDelay)
	}
}

// TestColdFireReportsNoNsOp: cold-fire sets its ns/op to zero, which go
// test and run leave out.
func TestColdFireReportsNoNsOp(t *testing.T) {
	res, err := Measure(func(tm Timer, n int) error { return TimerColdFire(tm, loopbenchDefault, 10, n) }, time.Nanosecond)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range res.Metrics {
		if m.Unit == "ns/op" && m.Value == 0 {
			return
		}
	}
	t.Fatalf("metrics %+v: no zero ns/op", res.Metrics)
}
