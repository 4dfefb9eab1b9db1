package loopbench

import (
	"testing"
	"time"

	"github.com/loopbench/loopbench/selectors"
)

// instantSelector answers every Select as a zero-timeout poll, so an
// iteration whose wait could block returns at once.
type instantSelector struct{ selectors.Selector }

func (s instantSelector) Select(_ time.Duration, buf []selectors.Event) ([]selectors.Event, error) {
	return s.Selector.Select(0, buf)
}

// boundSelector is an instantSelector that is ThreadBound: it counts the
// calls of Rescheduled.
type boundSelector struct {
	instantSelector
	rescheduled int
}

func (s *boundSelector) Rescheduled() { s.rescheduled++ }

// TestYieldBeforeWait checks that the loop yields its goroutine before a
// wait that may block once yieldEvery has passed on the loop clock since
// the last yield, and never before a wait with callbacks ready; and that
// it tells a ThreadBound selector of each yield.
func TestYieldBeforeWait(t *testing.T) {
	for _, cfg := range Variants() {
		t.Run(cfg.String(), func(t *testing.T) {
			l, err := New(cfg)
			if err != nil {
				t.Fatal(err)
			}
			defer l.Close()
			yields := 0
			l.c.yieldVia = func(func()) { yields++ }
			sel := &boundSelector{instantSelector: instantSelector{l.c.sel}}
			l.c.sel = sel
			now := time.Duration(0)
			l.c.clock = func() time.Duration { return now }
			l.CallLater(time.Hour, func() {}) // the wait would block
			e, ms := yieldEvery, time.Millisecond
			steps := []struct {
				at    time.Duration
				ready bool // a callback is ready: the wait does not block
				want  int
			}{
				{0, false, 0},
				{e - ms, false, 0},
				{e, true, 0},
				{e, false, 1},
				{2*e - ms, false, 1},
				{2 * e, false, 2},
				{8 * e, true, 2},
				{8 * e, false, 3},
				{8*e + ms, false, 3},
			}
			for i, s := range steps {
				now = s.at
				if s.ready {
					l.CallSoon(func() {})
				}
				if err := l.runOnce(); err != nil {
					t.Fatal(err)
				}
				if yields != s.want || sel.rescheduled != s.want {
					t.Fatalf("step %d (at %v, ready %v): %d yields, %d told the selector, want %d", i, s.at, s.ready, yields, sel.rescheduled, s.want)
				}
			}
		})
	}
}
