package loopbench_test

import (
	"bytes"
	"log/slog"
	"testing"
	"time"

	"github.com/loopbench/loopbench"
	"github.com/loopbench/loopbench/selectors"
)

// TestCallLaterSubMillisecond: a 200 µs CallLater on an idle loop fires
// before 1 ms by the loop's own clock, on every selector that waits
// finer than a millisecond here (asyncio, which rounds its selector
// timeout up to whole milliseconds, cannot). A wake-up can be late on a
// loaded machine, so the test passes when any of several tries is under
// 1 ms; that the timer never fires early holds on every try.
func TestCallLaterSubMillisecond(t *testing.T) {
	const d, bound, tries = 200 * time.Microsecond, time.Millisecond, 10
	for _, name := range selectors.Names() {
		t.Run("selector="+name, func(t *testing.T) {
			if res := resolution(t, name); res >= bound {
				t.Skipf("%s waits in steps of %v here", name, res)
			}
			l, err := loopbench.New(loopbench.Config{Selector: name})
			if err != nil {
				t.Fatal(err)
			}
			defer l.Close()
			var lates []time.Duration
			for range tries {
				var start, fired time.Duration
				l.CallSoon(func() {
					start = l.Time()
					l.CallLater(d, func() { fired = l.Time(); l.Stop() })
				})
				if err := l.RunForever(); err != nil {
					t.Fatal(err)
				}
				if fired-start < d {
					t.Fatalf("CallLater(%v) fired after %v: early", d, fired-start)
				}
				if fired-start < bound {
					return
				}
				lates = append(lates, fired-start)
			}
			t.Fatalf("CallLater(%v) fired after %v in %d tries; want one under %v", d, lates, tries, bound)
		})
	}
}

// resolution is the wait resolution of the selector called name.
func resolution(t *testing.T, name string) time.Duration {
	s, err := selectors.New(name)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	return s.Resolution()
}

// TestDebugLogsCoarseWaits: in debug mode a loop whose selector waits in
// whole milliseconds says so once, at New; a finer one says nothing.
func TestDebugLogsCoarseWaits(t *testing.T) {
	var buf bytes.Buffer
	old := slog.Default()
	slog.SetDefault(slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug})))
	defer slog.SetDefault(old)
	for _, name := range selectors.Names() {
		buf.Reset()
		l, err := loopbench.New(loopbench.Config{Selector: name, Debug: true})
		if err != nil {
			t.Fatal(err)
		}
		l.Close()
		coarse := resolution(t, name) >= time.Millisecond
		if logged := bytes.Contains(buf.Bytes(), []byte("whole milliseconds")); logged != coarse {
			t.Errorf("selector %s (coarse %v): debug log %q", name, coarse, buf.String())
		}
	}
}
