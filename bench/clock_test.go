package bench

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/loopbench/loopbench"
	"github.com/loopbench/loopbench/internal/measure/valgrind"
)

// counting runs the test with countingWindows set to on.
func counting(t *testing.T, on bool) {
	saved := countingWindows
	countingWindows = func() bool { return on }
	t.Cleanup(func() { countingWindows = saved })
}

// coldFirings runs cold-fire's timers (k, with its delays) on a loop of
// newClockLoop and returns each timer's firing: its deadline and the loop
// time it fired at, in firing order.
func coldFirings(t *testing.T, k int) [][2]time.Duration {
	l, err := newClockLoop(loopbenchDefault)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	var fired [][2]time.Duration
	drawColdDelays()
	for i := range k {
		d := coldDelay(i)
		l.CallLater(d, func() {
			if fired = append(fired, [2]time.Duration{d, l.Time()}); len(fired) == k {
				l.Stop()
			}
		})
	}
	if err := l.RunForever(); err != nil {
		t.Fatal(err)
	}
	return fired
}

// TestCountedClockRepeats: counted, a loop whose work follows the clock
// fires the same timers in the same iterations in every run, each at its
// deadline, whatever the real time it took.
func TestCountedClockRepeats(t *testing.T) {
	counting(t, true)
	const k = 2000
	a, b := coldFirings(t, k), coldFirings(t, k)
	if !slices.Equal(a, b) {
		t.Fatal("two runs fired the timers differently")
	}
	iterations := 0
	for i, f := range a {
		if f[0] != f[1] {
			t.Fatalf("timer %d, due at %v, fired at %v: want at its deadline", i, f[0], f[1])
		}
		if i == 0 || f[1] != a[i-1][1] {
			iterations++
		}
	}
	// The delays are drawn from 10⁸ ns: a few coincide, most fire alone.
	if iterations < k*9/10 || iterations > k {
		t.Fatalf("%d timers fired in %d iterations", k, iterations)
	}
}

// TestNativeClockIsReal: natively the loop keeps the real clock, which
// moves by itself; counted, the clock stands still while nothing waits.
func TestNativeClockIsReal(t *testing.T) {
	for _, on := range []bool{false, true} {
		counting(t, on)
		l, err := newClockLoop(loopbenchDefault)
		if err != nil {
			t.Fatal(err)
		}
		t0, moved := l.Time(), false
		for range 1_000_000 {
			if moved = l.Time() != t0; moved {
				break
			}
		}
		l.Close()
		if moved == on {
			t.Errorf("counting %v: the loop clock moved by itself: %v", on, moved)
		}
	}
}

// TestCountedCasesRun: every Timers case of the pull-request set on a
// loop runs to its end counted, under the virtual clock (sizes of 10⁵
// left out, for time).
func TestCountedCasesRun(t *testing.T) {
	counting(t, true)
	ran := 0
	for _, c := range Cases(Options{Workloads: []string{"Timers"}, Short: true, Variants: []loopbench.Config{loopbenchDefault}}) {
		if strings.Contains(c.Params, "=100000") {
			continue
		}
		run, cleanup, err := c.Setup()
		if err != nil {
			t.Fatal(err)
		}
		err = run(&calls{}, 3)
		if cleanup != nil {
			cleanup()
		}
		if err != nil {
			t.Errorf("%s/%s: %v", c.Workload, c.Name(), err)
		}
		ran++
	}
	if ran == 0 {
		t.Fatal("no case ran")
	}
}

// TestSizingRunsTheCountedClock: a native listing that sizes windows
// (valgrind.SizingEnv) runs the clock-following loops as counted, so an
// hour's timer fires at once, an hour later in loop time; without it, the
// loop keeps the real clock.
func TestSizingRunsTheCountedClock(t *testing.T) {
	t.Setenv(valgrind.SizingEnv, "1")
	l, err := newClockLoop(loopbenchDefault)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	t0 := l.Time()
	l.CallLater(time.Hour, l.Stop)
	if err := l.RunForever(); err != nil {
		t.Fatal(err)
	}
	if d := l.Time() - t0; d < time.Hour {
		t.Fatalf("the loop's clock moved %v for an hour's timer", d)
	}
	t.Setenv(valgrind.SizingEnv, "")
	if countingWindows() {
		t.Fatal("natively, without the sizing variable, the loop takes the virtual clock")
	}
}

// calls records a Timer's calls.
type calls struct{ got []string }

func (c *calls) ResetTimer()                  { c.got = append(c.got, "reset") }
func (c *calls) StartTimer()                  { c.got = append(c.got, "start") }
func (c *calls) StopTimer()                   { c.got = append(c.got, "stop") }
func (c *calls) ReportMetric(float64, string) { c.got = append(c.got, "metric") }
