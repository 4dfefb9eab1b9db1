package vclock_test

import (
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/loopbench/loopbench"
	"github.com/loopbench/loopbench/internal/loophook"
	"github.com/loopbench/loopbench/internal/measure/vclock"
	"github.com/loopbench/loopbench/selectors"
)

// newLoop returns a loop of the default variant driven by a new clock.
func newLoop(t testing.TB) (*loopbench.Loop, *vclock.Clock) {
	l, err := loopbench.New(loopbench.Config{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	c := new(vclock.Clock)
	loophook.Drive(l, c.Now, c.Wrap)
	return l, c
}

// Timers fire at exactly their deadlines on the virtual clock, which
// stands still while callbacks run.
func Example() {
	l, _ := loopbench.New(loopbench.Config{})
	defer l.Close()
	c := new(vclock.Clock)
	loophook.Drive(l, c.Now, c.Wrap)
	for _, d := range []time.Duration{30 * time.Millisecond, 10 * time.Millisecond, 10 * time.Millisecond} {
		l.CallLater(d, func() { fmt.Println("due", d, "fired at", l.Time()) })
	}
	l.CallLater(time.Hour, l.Stop)
	l.RunForever()
	fmt.Println("stopped at", l.Time())
	// Output:
	// due 10ms fired at 10ms
	// due 10ms fired at 10ms
	// due 30ms fired at 30ms
	// stopped at 1h0m0s
}

// TestSameIterations runs timers from cold twice and requires the same
// timers fired in each iteration, each at its deadline: the work does not
// follow the real time it takes.
func TestSameIterations(t *testing.T) {
	const k = 500
	delays := make([]time.Duration, k)
	for i := range delays {
		delays[i] = time.Duration(i*7919%1000) * time.Microsecond
	}
	type firing struct{ deadline, at time.Duration }
	run := func() []firing {
		l, _ := newLoop(t)
		var fired []firing
		for _, d := range delays {
			l.CallLater(d, func() {
				if fired = append(fired, firing{d, l.Time()}); len(fired) == k {
					l.Stop()
				}
			})
		}
		if err := l.RunForever(); err != nil {
			t.Fatal(err)
		}
		return fired
	}
	a, b := run(), run()
	if !slices.Equal(a, b) {
		t.Fatalf("the timers fired differ between two runs:\n%v\n%v", a, b)
	}
	for i, f := range a {
		if f.deadline != f.at {
			t.Fatalf("timer %d, due at %v, fired at %v: want at its deadline", i, f.deadline, f.at)
		}
	}
}

// fake is a selector with events to report, recording the timeouts it
// is asked to wait.
type fake struct {
	selectors.Selector
	events   []selectors.Event
	timeouts []time.Duration
}

func (f *fake) Select(timeout time.Duration, buf []selectors.Event) ([]selectors.Event, error) {
	f.timeouts = append(f.timeouts, timeout)
	return append(buf, f.events...), nil
}

func TestSelect(t *testing.T) {
	f := &fake{}
	c := new(vclock.Clock)
	s := c.Wrap(f)
	for _, step := range []struct {
		timeout time.Duration
		events  []selectors.Event
		err     error
		now     time.Duration
	}{
		{timeout: 0, now: 0},
		{timeout: 5 * time.Millisecond, now: 5 * time.Millisecond},
		{timeout: 1, now: 5*time.Millisecond + 1},
		{timeout: 7 * time.Second, events: []selectors.Event{{Fd: 3, Events: selectors.Read}}, now: 5*time.Millisecond + 1},
		{timeout: -1, events: []selectors.Event{{Fd: 3, Events: selectors.Read}}, now: 5*time.Millisecond + 1},
		{timeout: -1, err: vclock.ErrBlocked, now: 5*time.Millisecond + 1},
	} {
		f.events = step.events
		evs, err := s.Select(step.timeout, nil)
		if !errors.Is(err, step.err) || len(evs) != len(step.events) || c.Now() != step.now {
			t.Errorf("Select(%v) with %d ready = %d events, %v, clock %v; want %d, %v, clock %v",
				step.timeout, len(step.events), len(evs), err, c.Now(), len(step.events), step.err, step.now)
		}
	}
	for i, d := range f.timeouts {
		if d != 0 {
			t.Errorf("call %d waited %v on the selector: want 0, a poll", i, d)
		}
	}
}

// TestLoopBlocked: a loop with nothing to wait for but another thread
// fails its run instead of hanging.
func TestLoopBlocked(t *testing.T) {
	l, c := newLoop(t)
	l.CallLater(time.Second, func() {})
	err := l.RunForever()
	if !errors.Is(err, vclock.ErrBlocked) || c.Now() != time.Second {
		t.Fatalf("RunForever = %v at %v; want ErrBlocked at 1s", err, c.Now())
	}
}
