package loopbench

import (
	"bytes"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/loopbench/loopbench/internal/conform/seltest"
	"github.com/loopbench/loopbench/selectors"
)

// recordingSelector wraps a selector and records what the loop asks of it.
type recordingSelector struct {
	selectors.Selector
	timeouts []time.Duration
	ops      []string
}

func (r *recordingSelector) Select(d time.Duration, buf []selectors.Event) ([]selectors.Event, error) {
	r.timeouts = append(r.timeouts, d)
	return r.Selector.Select(d, buf)
}

func (r *recordingSelector) Register(fd int, ev selectors.Events) error {
	r.ops = append(r.ops, "register "+ev.String())
	return r.Selector.Register(fd, ev)
}

func (r *recordingSelector) Modify(fd int, ev selectors.Events) error {
	r.ops = append(r.ops, "modify "+ev.String())
	return r.Selector.Modify(fd, ev)
}

func (r *recordingSelector) Unregister(fd int) error {
	r.ops = append(r.ops, "unregister")
	return r.Selector.Unregister(fd)
}

// eachConfig runs f on a fresh loop for every variant in both cancel modes.
func eachConfig(t *testing.T, f func(t *testing.T, l *Loop, rec *recordingSelector)) {
	for _, cfg := range Variants() {
		for _, mode := range cancelNames {
			cfg.TimerCancel = mode
			t.Run(cfg.String(), func(t *testing.T) {
				l, err := New(cfg)
				if err != nil {
					t.Fatal(err)
				}
				defer l.Close()
				rec := &recordingSelector{Selector: l.c.sel}
				l.c.sel = rec
				f(t, l, rec)
			})
		}
	}
}

// runOnce runs one iteration without RunForever's bookkeeping.
func (l *Loop) runOnce() error {
	if l.rb != nil {
		return l.rb.runOnce()
	}
	return l.dq.runOnce()
}

func TestCancelledHeadDoesNotShortenTimeout(t *testing.T) {
	eachConfig(t, func(t *testing.T, l *Loop, rec *recordingSelector) {
		now := time.Duration(0)
		l.c.clock = func() time.Duration { return now }
		l.CallLater(time.Millisecond, func() {}).Cancel()
		l.CallLater(time.Hour, func() {})
		l.c.stopping = false
		// One iteration with something ready, so Select gets timeout 0 and
		// the lazy sweep pops the cancelled head; then the timeout the
		// next iteration would use.
		l.CallSoon(func() {})
		l.runOnce()
		if got := l.c.selectTimeout(0); got != time.Hour {
			t.Fatalf("timeout with a cancelled 1 ms head and a 1 h timer = %v, want 1h", got)
		}
	})
}

func TestStopBeforeRunSelectsWithZeroTimeout(t *testing.T) {
	eachConfig(t, func(t *testing.T, l *Loop, rec *recordingSelector) {
		// A watched fd, so that the iteration has something to select.
		a, _ := seltest.Pair(t)
		if err := l.AddReader(a, func() {}); err != nil {
			t.Fatal(err)
		}
		l.CallLater(time.Hour, func() {})
		l.Stop()
		if err := l.RunForever(); err != nil {
			t.Fatal(err)
		}
		if len(rec.timeouts) != 1 || rec.timeouts[0] != 0 {
			t.Fatalf("Select timeouts %v, want exactly one iteration with timeout 0", rec.timeouts)
		}
	})
}

// TestPollSkippedWhenNothingWatched: an iteration that must not block and
// has no fd to watch makes no Select call; one fd watched brings it back.
func TestPollSkippedWhenNothingWatched(t *testing.T) {
	eachConfig(t, func(t *testing.T, l *Loop, rec *recordingSelector) {
		ran := 0
		step := func() {
			l.CallSoon(func() { ran++ })
			l.runOnce()
		}
		step()
		a, _ := seltest.Pair(t)
		if err := l.AddReader(a, func() {}); err != nil {
			t.Fatal(err)
		}
		step()
		l.RemoveReader(a)
		step()
		if ran != 3 || len(rec.timeouts) != 1 || rec.timeouts[0] != 0 {
			t.Fatalf("ran %d callbacks, Select timeouts %v; want 3 and one Select (timeout 0), while the reader was watched", ran, rec.timeouts)
		}
	})
}

// TestThreadsafeSeenWithoutPoll: a thread-safe callback queued while the
// loop is busy runs in the next iteration even though that iteration
// polls nothing, and the wakeup it left pending is drained by the next
// blocking poll, which returns at once.
func TestThreadsafeSeenWithoutPoll(t *testing.T) {
	eachConfig(t, func(t *testing.T, l *Loop, rec *recordingSelector) {
		var got []string
		l.CallSoon(func() { got = append(got, "soon") })
		done := make(chan struct{})
		go func() {
			l.CallSoonThreadsafe(func() { got = append(got, "threadsafe") })
			close(done)
		}()
		<-done
		l.runOnce()
		if len(got) != 2 || len(rec.timeouts) != 0 {
			t.Fatalf("ran %v with Select timeouts %v; want both callbacks and no Select", got, rec.timeouts)
		}
		returned := make(chan struct{})
		go func() { l.runOnce(); close(returned) }()
		select {
		case <-returned:
		case <-time.After(10 * time.Second):
			t.Fatal("the blocking poll did not see the pending wakeup")
		}
		if len(rec.timeouts) != 1 || rec.timeouts[0] != -1 {
			t.Fatalf("Select timeouts %v, want one blocking Select", rec.timeouts)
		}
		if evs, err := l.c.sel.Select(0, nil); err != nil || len(evs) != 0 {
			t.Fatalf("after the drain Select = %v, %v; want no event", evs, err)
		}
	})
}

func TestBlocksWithoutTimers(t *testing.T) {
	eachConfig(t, func(t *testing.T, l *Loop, rec *recordingSelector) {
		go l.CallSoonThreadsafe(l.Stop)
		if err := l.RunForever(); err != nil {
			t.Fatal(err)
		}
		// Already woken, the iteration had timeout 0 and nothing to poll.
		if len(rec.timeouts) > 0 && rec.timeouts[0] != -1 {
			t.Fatalf("first Select timeout %v, want -1 (block) or no Select (already woken)", rec.timeouts[0])
		}
		l.CallLater(100*maxSelectTimeout, func() {})
		if got := l.c.selectTimeout(0); got != maxSelectTimeout {
			t.Fatalf("timeout for a far timer = %v, want the 24 h cap", got)
		}
	})
}

// TestLazyCompaction checks asyncio's policy: cancelled timers stay in the
// heap until the head is cancelled or more than 100 are scheduled with
// more than half cancelled; eager mode removes them at once.
func TestLazyCompaction(t *testing.T) {
	eachConfig(t, func(t *testing.T, l *Loop, rec *recordingSelector) {
		var hs []TimerHandle
		for i := range 100 {
			hs = append(hs, l.CallLater(time.Hour+time.Duration(i), func() {}))
		}
		for _, h := range hs[50:] { // the tail: not at the head
			h.Cancel()
		}
		l.c.stopping = true
		l.runOnce()
		want := 100 // lazy: 100 scheduled is not more than 100
		if !l.c.lazy {
			want = 50
		}
		if n := l.c.timers.Len(); n != want {
			t.Fatalf("after cancelling 50 of 100: %d in the heap, want %d", n, want)
		}
		for range 3 {
			hs = append(hs, l.CallLater(2*time.Hour, func() {}))
		}
		hs[101].Cancel()
		hs[102].Cancel() // 103 scheduled, 52 cancelled
		l.runOnce()
		if n := l.c.timers.Len(); n != 51 {
			t.Fatalf("after 52 of 103 cancelled: %d in the heap, want 51", n)
		}
		hs[0].Cancel() // the head
		l.runOnce()
		if n := l.c.timers.Len(); n != 50 {
			t.Fatalf("after cancelling the head: %d in the heap, want 51", n)
		}
	})
}

func TestReaderWriterShareRegistration(t *testing.T) {
	eachConfig(t, func(t *testing.T, l *Loop, rec *recordingSelector) {
		a, _ := seltest.Pair(t)
		l.AddReader(a, func() {})
		l.AddWriter(a, func() {})
		l.AddWriter(a, func() {}) // replaces: the same events, modified all the same (fd reuse)
		l.RemoveReader(a)
		l.RemoveWriter(a)
		want := "register read,modify read|write,modify read|write,modify write,unregister"
		if got := strings.Join(rec.ops, ","); got != want {
			t.Fatalf("selector calls %q, want %q", got, want)
		}
	})
}

func TestEventForCancelledHandleUnregisters(t *testing.T) {
	eachConfig(t, func(t *testing.T, l *Loop, rec *recordingSelector) {
		a, b := seltest.Pair(t)
		ran := false
		l.AddReader(a, func() { ran = true })
		// A handle cancelled while still installed, as asyncio allows.
		l.c.slots[l.c.fds[a].reader-1].flags |= flagCancelled
		seltest.Write(t, b, "x")
		l.c.stopping = true
		l.runOnce()
		if ran || l.RemoveReader(a) {
			t.Fatalf("cancelled reader ran (%v) or is still installed", ran)
		}
		if got := rec.ops[len(rec.ops)-1]; got != "unregister" {
			t.Fatalf("last selector call %q, want unregister", got)
		}
	})
}

// debugLoop returns a loop in debug mode with a 50 ms slow-callback
// threshold, the buffer it logs to, and the clock it reads, which the test
// advances.
func debugLoop(t *testing.T) (*Loop, *bytes.Buffer, *time.Duration) {
	l, err := New(Config{Debug: true, SlowCallbackDuration: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	out := new(bytes.Buffer)
	l.SetLogger(slog.New(slog.NewTextHandler(out, nil)))
	now := new(time.Duration)
	l.c.clock = func() time.Duration { return *now }
	return l, out, now
}

func TestSlowCallbackLogged(t *testing.T) {
	l, out, now := debugLoop(t)
	l.CallSoon(func() { *now += 10 * time.Millisecond })
	l.CallSoon(slowCallback(now))
	l.c.stopping = true
	l.runOnce()
	got := out.String()
	if strings.Count(got, "\n") != 1 || !strings.Contains(got, "slowCallback") || !strings.Contains(got, "took=200ms") || !strings.Contains(got, "level=WARN") {
		t.Fatalf("debug log %q, want one warning naming slowCallback and 200ms", got)
	}
}

// TestSlowTimerLoggedOnce: a slow timer callback, run from the slots the
// iteration queued, is logged once, under its own name and handle.
func TestSlowTimerLoggedOnce(t *testing.T) {
	l, out, now := debugLoop(t)
	th := l.CallLater(-1, slowCallback(now))
	l.c.stopping = true
	l.runOnce()
	got := out.String()
	if strings.Count(got, "\n") != 1 || !strings.Contains(got, "slowCallback") || !strings.Contains(got, th.Handle.String()) {
		t.Fatalf("debug log %q, want one line naming slowCallback and %v", got, th.Handle)
	}
}

func slowCallback(now *time.Duration) func() {
	return func() { *now += 200 * time.Millisecond }
}

// TestZeroAllocs: the hot paths allocate nothing once warmed up.
func TestZeroAllocs(t *testing.T) {
	eachConfig(t, func(t *testing.T, l *Loop, rec *recordingSelector) {
		l.c.sel = rec.Selector // the recorder itself appends
		fn := func() {}
		step := func() { l.c.stopping = true; l.runOnce() }
		cases := []struct {
			name string
			f    func()
		}{
			{"CallSoon+run", func() { l.CallSoon(fn); step() }},
			{"CallLater+Cancel", func() {
				l.CallLater(time.Hour, fn).Cancel()
				if l.c.lazy {
					step()
				}
			}},
			{"timer fires", func() { l.CallLater(-1, fn); step() }},
			{"idle iteration", step},
		}
		for _, c := range cases {
			c.f() // warm up
			if a := testing.AllocsPerRun(1000, c.f); a != 0 {
				t.Errorf("%s: %.2f allocs/op, want 0", c.name, a)
			}
		}
	})
}
