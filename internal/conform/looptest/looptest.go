// Package looptest is the loop conformance suite: the asyncio behaviours
// every loopbench variant must show (handles, timers, stop/run, close, I/O,
// threads, panic containment), through the public API only. Configs
// returns every variant in both timer-cancel modes; Run checks one.
package looptest

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/loopbench/loopbench"
)

// Configs returns every entry of Variants in eager and lazy cancel mode.
func Configs() []loopbench.Config {
	var cs []loopbench.Config
	for _, v := range loopbench.Variants() {
		for _, mode := range []string{"eager", "lazy"} {
			v.TimerCancel = mode
			cs = append(cs, v)
		}
	}
	return cs
}

// Parts is a variant for each implementation of each part: the default
// variant with each ready queue, each timer queue and each selector in
// turn, the others at their defaults. Every part runs a suite on it,
// without every combination of parts: for the suites whose cost is the
// process's (children, signals, fds, TLS volumes) rather than the
// parts', which the other suites run in every combination.
func Parts() []loopbench.Config {
	def, _ := loopbench.ParseVariant(loopbench.Config{}.String())
	var cs []loopbench.Config
	for _, v := range loopbench.Variants() {
		differ := 0
		for _, d := range []bool{v.Ready != def.Ready, v.Timers != def.Timers, v.Selector != def.Selector} {
			if d {
				differ++
			}
		}
		if differ <= 1 {
			cs = append(cs, v)
		}
	}
	return cs
}

// PartsBothModes is Parts in both timer-cancel modes.
func PartsBothModes() []loopbench.Config {
	var cs []loopbench.Config
	for _, v := range Parts() {
		for _, mode := range []string{"eager", "lazy"} {
			v.TimerCancel = mode
			cs = append(cs, v)
		}
	}
	return cs
}

// New returns a loop for cfg, closed at the end of the test.
func New(tb testing.TB, cfg loopbench.Config) *loopbench.Loop {
	tb.Helper()
	l, err := loopbench.New(cfg)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() {
		if err := l.Close(); err != nil {
			tb.Errorf("Close: %v", err)
		}
	})
	return l
}

// RunOnce runs exactly one iteration (Stop, then RunForever) and fails the
// test if that errs.
func RunOnce(tb testing.TB, l *loopbench.Loop) {
	tb.Helper()
	l.Stop()
	if err := l.RunForever(); err != nil {
		tb.Fatal(err)
	}
}

// RunFor runs l until Stop, failing the test if that takes longer than
// limit: a generous deadline, so a hang fails instead of blocking CI.
func RunFor(tb testing.TB, l *loopbench.Loop, limit time.Duration) {
	tb.Helper()
	timer := time.AfterFunc(limit, func() { l.CallSoonThreadsafe(func() { tb.Errorf("loop still running after %v", limit); l.Stop() }) })
	defer timer.Stop()
	if err := l.RunForever(); err != nil {
		tb.Fatal(err)
	}
}

// recorder collects the order callbacks ran in.
type recorder struct{ got []string }

func (r *recorder) add(s string) func() { return func() { r.got = append(r.got, s) } }

func (r *recorder) want(tb testing.TB, want ...string) {
	tb.Helper()
	if !slices.Equal(r.got, want) {
		tb.Fatalf("ran %q, want %q", r.got, want)
	}
}

// loopTest is one test of a suite, run on a fresh loop.
type loopTest struct {
	name string
	fn   func(*testing.T, *loopbench.Loop)
}

// runEach runs each test as a subtest on its own new loop of cfg.
func runEach(t *testing.T, cfg loopbench.Config, tests []loopTest) {
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) { tc.fn(t, New(t, cfg)) })
	}
}

// Run runs the loop conformance suite on cfg.
func Run(t *testing.T, cfg loopbench.Config) {
	runEach(t, cfg, []loopTest{
		{"CallSoonFIFO", testFIFO},
		{"ScheduledDuringIterationRunsNext", testNextIteration},
		{"CancelledHandleSkipped", testCancel},
		{"CancelDeepInQueue", testCancelDeep},
		{"StaleHandle", testStaleHandle},
		{"TimerDeadlineOrder", testTimerOrder},
		{"NegativeDelays", testNegativeDelays},
		{"TimerNeverEarly", testNeverEarly},
		{"EqualDeadlinesFIFO", testEqualDeadlines},
		{"CallLaterZeroAfterCallSoon", testLaterZero},
		{"TimerCancel", testTimerCancel},
		{"HugeDelaySaturates", testHugeDelay},
		{"StopBeforeRun", testStopBeforeRun},
		{"StopInsideCallback", testStopInside},
		{"RunUntilComplete", testRunUntilComplete},
		{"NestedRun", testNestedRun},
		{"RunUntilCompleteRefused", testRunUntilCompleteRefused},
		{"Close", testClose},
		{"PanicContained", testPanic},
		{"PanicInExceptionHandler", testPanicInHandler},
		{"ThreadsafeFromGoroutines", testThreadsafe},
		{"ThreadsafeCancel", testThreadsafeCancel},
		{"TryThreadsafeAfterClose", testTryThreadsafe},
	})
	runIO(t, cfg)
}

func testFIFO(t *testing.T, l *loopbench.Loop) {
	var r recorder
	var want []string
	for i := range 300 {
		s := fmt.Sprint(i)
		l.CallSoon(r.add(s))
		want = append(want, s)
	}
	RunOnce(t, l)
	r.want(t, want...)
}

func testNextIteration(t *testing.T, l *loopbench.Loop) {
	var r recorder
	l.CallSoon(func() {
		r.add("a")()
		l.CallSoon(r.add("c"))
		l.Stop()
	})
	l.CallSoon(r.add("b"))
	RunOnce(t, l)
	r.want(t, "a", "b")
	RunOnce(t, l)
	r.want(t, "a", "b", "c")
}

func testCancel(t *testing.T, l *loopbench.Loop) {
	var r recorder
	l.CallSoon(r.add("a"))
	h := l.CallSoon(r.add("b"))
	l.CallSoon(r.add("c"))
	h.Cancel()
	h.Cancel()
	if !h.Cancelled() {
		t.Fatal("Cancelled() = false after Cancel")
	}
	// Cancelling from a callback that runs earlier in the same iteration.
	var h2 loopbench.Handle
	l.CallSoon(func() { h2.Cancel() })
	h2 = l.CallSoon(r.add("d"))
	RunOnce(t, l)
	r.want(t, "a", "c")
}

// testCancelDeep cancels CallSoon callbacks far from the head of a long
// queue, after earlier bursts have moved the queue's ends (ring wrap-around,
// deque blocks), and from a callback running ahead of them.
func testCancelDeep(t *testing.T, l *loopbench.Loop) {
	for range 3 {
		for range 700 {
			l.CallSoon(func() {})
		}
		RunOnce(t, l)
	}
	var r recorder
	var want []string
	hs := make([]loopbench.Handle, 1000)
	l.CallSoon(func() { hs[999].Cancel() })
	for i := range hs {
		s := fmt.Sprint(i)
		hs[i] = l.CallSoon(r.add(s))
		if i%7 != 3 && i != 999 {
			want = append(want, s)
		}
	}
	for i := 3; i < len(hs); i += 7 {
		hs[i].Cancel()
	}
	for i := range hs {
		if got := hs[i].Cancelled(); got != (i%7 == 3) {
			t.Fatalf("handle %d: Cancelled() = %v before the run", i, got)
		}
	}
	RunOnce(t, l)
	r.want(t, want...)
	if hs[3].Cancelled() {
		t.Fatal("a handle whose callback left the queue still reports Cancelled")
	}
}

func testStaleHandle(t *testing.T, l *loopbench.Loop) {
	var r recorder
	old := l.CallSoon(r.add("first"))
	RunOnce(t, l)
	// The next callback reuses the freed slot; the stale handle must not
	// touch it.
	l.CallSoon(r.add("second"))
	old.Cancel()
	if old.Cancelled() {
		t.Fatal("a stale handle reports Cancelled")
	}
	RunOnce(t, l)
	r.want(t, "first", "second")
	var zero loopbench.Handle
	zero.Cancel()
}

func testTimerOrder(t *testing.T, l *loopbench.Loop) {
	var r recorder
	// One base time: on a loaded machine milliseconds can pass between
	// two CallLater calls, which would reorder their deadlines.
	base := l.Time()
	for _, ms := range []int{3, 1, 4, 2} {
		l.CallAt(base+time.Duration(ms)*time.Millisecond, r.add(fmt.Sprint(ms)))
	}
	l.CallAt(base+5*time.Millisecond, l.Stop)
	RunFor(t, l, 10*time.Second)
	r.want(t, "1", "2", "3", "4")
}

func testNegativeDelays(t *testing.T, l *loopbench.Loop) {
	var r recorder
	base := l.Time()
	for _, ms := range []int{-3, -1, -4, -2} {
		l.CallAt(base+time.Duration(ms)*time.Millisecond, r.add(fmt.Sprint(ms)))
	}
	RunOnce(t, l)
	r.want(t, "-4", "-3", "-2", "-1")
}

func testNeverEarly(t *testing.T, l *loopbench.Loop) {
	for _, d := range []time.Duration{0, 300 * time.Microsecond, 2 * time.Millisecond} {
		var h loopbench.TimerHandle
		h = l.CallLater(d, func() {
			if now := l.Time(); now < h.When() {
				t.Errorf("timer for %v ran at %v, early", h.When(), now)
			}
			l.Stop()
		})
		RunFor(t, l, 10*time.Second)
	}
}

func testEqualDeadlines(t *testing.T, l *loopbench.Loop) {
	var r recorder
	var want []string
	when := l.Time() + time.Millisecond
	for i := range 50 {
		l.CallAt(when, r.add(fmt.Sprint(i)))
		want = append(want, fmt.Sprint(i))
	}
	l.CallAt(when, l.Stop)
	RunFor(t, l, 10*time.Second)
	r.want(t, want...)
}

func testLaterZero(t *testing.T, l *loopbench.Loop) {
	var r recorder
	l.CallLater(0, r.add("a"))
	l.CallSoon(r.add("b"))
	RunOnce(t, l)
	r.want(t, "b", "a")
}

func testTimerCancel(t *testing.T, l *loopbench.Loop) {
	var r recorder
	var hs []loopbench.TimerHandle
	base := l.Time()
	for i := range 300 {
		hs = append(hs, l.CallAt(base-time.Duration(i), r.add(fmt.Sprint(i))))
	}
	var want []string
	for i := 299; i >= 0; i-- {
		if i%3 == 0 {
			want = append(want, fmt.Sprint(i))
			continue
		}
		hs[i].Cancel()
		hs[i].Cancel()
	}
	RunOnce(t, l)
	r.want(t, want...)
	// A far timer cancelled does not keep the loop from blocking on a
	// nearer one, nor fire.
	l.CallLater(time.Hour, r.add("far")).Cancel()
	l.CallLater(time.Millisecond, l.Stop)
	RunFor(t, l, 10*time.Second)
	r.want(t, want...)
}
