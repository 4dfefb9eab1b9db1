package loopbench

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/loopbench/loopbench/impl/heap2ary"
	"github.com/loopbench/loopbench/impl/heap4ary"
	"github.com/loopbench/loopbench/impl/wheel"
	"github.com/loopbench/loopbench/selectors"
)

// Config chooses a loop's parts. Empty fields take the defaults:
// ringbuffer, heap4ary, the system's preferred selector (epoll on Linux),
// eager cancel, 100 ms slow-callback threshold.
type Config struct {
	Ready, Timers, Selector string
	// TimerCancel is the cancel policy of timers. "eager" (the default):
	// Cancel takes the timer out of its queue at once. "lazy" (asyncio's):
	// Cancel marks the handle, and the loop drops cancelled timers later.
	// docs/design-notes.md explains both.
	TimerCancel string
	// Debug logs callbacks that run longer than SlowCallbackDuration, and,
	// at New through slog.Default at level Info, a selector that can only
	// wait in whole milliseconds here (epoll on a kernel without
	// epoll_pwait2, poll without ppoll).
	Debug                bool
	SlowCallbackDuration time.Duration
}

// The valid part names, defaults first.
var (
	readyNames  = []string{"ringbuffer", "deque"}
	cancelNames = []string{"eager", "lazy"}
)

// timerQueue is the timer-queue contract (impl/heap2ary, impl/heap4ary,
// impl/wheel).
// Its calls cost tens to hundreds of ns, so an interface is cheap here.
type timerQueue interface {
	Push(when int64, id uint32)
	Peek() (when int64, id uint32, ok bool)
	Pop() (when int64, id uint32, ok bool)
	PopBefore(end int64, ids []uint32) []uint32
	Remove(id uint32) bool
	Retain(keep func(id uint32) bool) int
	Len() int
}

// timerQueues are the timer queues, the default first: each one's name
// and how to make one. Names, validation and the loop read this list.
var timerQueues = []struct {
	name string
	new  func() timerQueue
}{
	{"heap4ary", func() timerQueue { return new(heap4ary.Heap) }},
	{"heap2ary", func() timerQueue { return new(heap2ary.Heap) }},
	{"wheel", func() timerQueue { return new(wheel.Wheel) }},
}

// timerNames lists the names of timerQueues, the default first.
func timerNames() []string {
	names := make([]string, len(timerQueues))
	for i, q := range timerQueues {
		names[i] = q.name
	}
	return names
}

// newTimerQueue returns a new timer queue called name, or the error
// validate gives for an unknown one.
func newTimerQueue(name string) (timerQueue, error) {
	for _, q := range timerQueues {
		if q.name == name {
			return q.new(), nil
		}
	}
	return nil, unknownName("timer queue", name, timerNames())
}

// unknownName is the error for a part name that is not one of valid.
func unknownName(what, got string, valid []string) error {
	return fmt.Errorf("unknown %s %q (valid: %s)", what, got, strings.Join(valid, ", "))
}

const defaultSlowCallback = 100 * time.Millisecond

// normalized returns c with every empty field set to its default.
func (c Config) normalized() Config {
	pick := func(s, def string) string {
		if s == "" {
			return def
		}
		return s
	}
	c.Ready = pick(c.Ready, readyNames[0])
	c.Timers = pick(c.Timers, timerQueues[0].name)
	c.Selector = pick(c.Selector, selectors.Default())
	c.TimerCancel = pick(c.TimerCancel, cancelNames[0])
	if c.SlowCallbackDuration <= 0 {
		c.SlowCallbackDuration = defaultSlowCallback
	}
	return c
}

// validate reports the first unknown part name, listing the valid ones;
// its callers prefix the package's name.
func (c Config) validate() error {
	n := c.normalized()
	if err := selectors.Available(n.Selector); errors.Is(err, selectors.ErrUnavailable) {
		return err // a selector this system refuses, and why
	}
	for _, f := range []struct {
		what, got string
		valid     []string
	}{
		{"ready queue", n.Ready, readyNames},
		{"timer queue", n.Timers, timerNames()},
		{"selector", n.Selector, selectors.Names()},
		{"timer cancel mode", n.TimerCancel, cancelNames},
	} {
		if !slices.Contains(f.valid, f.got) {
			return unknownName(f.what, f.got, f.valid)
		}
	}
	return nil
}

// String names the variant: "ready=ringbuffer/timers=heap4ary/selector=epoll",
// with "/cancel=lazy" appended in lazy-cancel mode. Defaults are spelled
// out. ParseVariant reads it back; benchmarks use it as a sub-name.
func (c Config) String() string {
	n := c.normalized()
	s := "ready=" + n.Ready + "/timers=" + n.Timers + "/selector=" + n.Selector
	if n.TimerCancel != cancelNames[0] {
		s += "/cancel=" + n.TimerCancel
	}
	return s
}

// ParseVariant parses what Config.String prints: "/"-separated key=value
// segments with keys ready, timers, selector and cancel, in any order; a
// missing key takes its default. Unknown keys or values are errors that
// list the valid ones.
func ParseVariant(s string) (Config, error) {
	var c Config
	if s == "" {
		return c, nil
	}
	fields := map[string]*string{"ready": &c.Ready, "timers": &c.Timers, "selector": &c.Selector, "cancel": &c.TimerCancel}
	for _, seg := range strings.Split(s, "/") {
		k, v, ok := strings.Cut(seg, "=")
		p := fields[k]
		switch {
		case !ok || v == "":
			return Config{}, fmt.Errorf("loopbench: variant %q: segment %q is not key=value", s, seg)
		case p == nil:
			return Config{}, fmt.Errorf("loopbench: variant %q: unknown key %q (valid: ready, timers, selector, cancel)", s, k)
		case *p != "":
			return Config{}, fmt.Errorf("loopbench: variant %q: key %q given twice", s, k)
		}
		*p = v
	}
	if err := c.validate(); err != nil {
		return Config{}, fmt.Errorf("loopbench: variant %q: %w", s, err)
	}
	return c, nil
}

// Variants returns every combination of ready queue, timer queue and
// selector available on this system, in eager-cancel mode, defaults first.
func Variants() []Config {
	var vs []Config
	for _, r := range readyNames {
		for _, t := range timerNames() {
			for _, s := range selectors.Names() {
				vs = append(vs, Config{Ready: r, Timers: t, Selector: s})
			}
		}
	}
	return vs
}
