package selectors

import (
	"slices"
	"testing"
)

func TestMerger(t *testing.T) {
	var m merger
	var buf []Event
	for _, r := range []struct {
		fd int
		ev Events
	}{{7, Read}, {3, Write}, {7, Write}, {5, Read}, {3, Read}, {3, Read}} {
		buf = m.add(buf, r.fd, r.ev, 8)
	}
	want := []Event{{7, Read | Write}, {3, Read | Write}, {5, Read}}
	if !slices.Equal(buf, want) {
		t.Fatalf("merged %v, want %v", buf, want)
	}
	m.done(buf)
	if slices.ContainsFunc(m.pos, func(p int32) bool { return p != 0 }) {
		t.Fatalf("positions left after done: %v", m.pos)
	}
	// The next Select starts afresh: fd 7 again is a new Event.
	buf = m.add(buf[:0], 7, Write, 20)
	if !slices.Equal(buf, []Event{{7, Write}}) || len(m.pos) != 20 {
		t.Fatalf("second Select %v (pos len %d)", buf, len(m.pos))
	}
}

func TestMergerAllocs(t *testing.T) {
	var m merger
	buf := make([]Event, 0, 4)
	if n := testing.AllocsPerRun(100, func() {
		buf = m.add(buf[:0], 2, Read, 8)
		buf = m.add(buf, 2, Write, 8)
		m.done(buf)
	}); n != 0 {
		t.Fatalf("%v allocs per Select", n)
	}
}
