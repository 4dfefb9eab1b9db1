package loopbench

import (
	"fmt"
	"testing"
)

// TestTimerQueueRegistry: every timer queue name resolves to a queue of
// its own type that works, and an unknown name gets the error validate
// gives, which lists the valid names.
func TestTimerQueueRegistry(t *testing.T) {
	types := map[string]string{}
	for _, name := range timerNames() {
		q, err := newTimerQueue(name)
		if err != nil {
			t.Fatalf("newTimerQueue(%q): %v", name, err)
		}
		typ := fmt.Sprintf("%T", q)
		if other, ok := types[typ]; ok {
			t.Fatalf("%q and %q both make a %s", other, name, typ)
		}
		types[typ] = name
		q.Push(20, 2)
		q.Push(10, 1)
		if when, id, ok := q.Pop(); !ok || when != 10 || id != 1 || q.Len() != 1 {
			t.Fatalf("%s: Pop() = %d, %d, %v with %d left, want 10, 1, true with 1", name, when, id, ok, q.Len())
		}
	}
	if got := (Config{}).normalized().Timers; got != timerNames()[0] {
		t.Fatalf("default timer queue %q, want the registry's first, %q", got, timerNames()[0])
	}
	_, err := newTimerQueue("calendar")
	want := Config{Timers: "calendar"}.validate()
	const msg = `unknown timer queue "calendar" (valid: heap4ary, heap2ary, wheel)`
	if err == nil || want == nil || err.Error() != want.Error() || err.Error() != msg {
		t.Fatalf("newTimerQueue(unknown) = %v; validate: %v; want %s", err, want, msg)
	}
}
