package wheel

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

const ms = tickNs

func mustCheck(t *testing.T, w *Wheel, what string) {
	t.Helper()
	if err := w.Check(); err != nil {
		t.Fatalf("after %s: %v", what, err)
	}
}

// drain pops everything and checks deadline order, ties in push order.
func drain(t *testing.T, w *Wheel, want []int64) {
	t.Helper()
	type e struct {
		when int64
		id   uint32
	}
	var exp []e
	for i, d := range want {
		exp = append(exp, e{d, uint32(i)})
	}
	slices.SortStableFunc(exp, func(a, b e) int {
		switch {
		case a.when < b.when:
			return -1
		case a.when > b.when:
			return 1
		}
		return 0
	})
	for i, x := range exp {
		pw, pid, _ := w.Peek()
		got, id, ok := w.Pop()
		mustCheck(t, w, "pop")
		if !ok || got != x.when || id != x.id || pw != got || pid != id {
			t.Fatalf("pop %d = (%d, %d, %v), peek (%d, %d); want (%d, %d)", i, got, id, ok, pw, pid, x.when, x.id)
		}
	}
	if _, _, ok := w.Pop(); ok || w.Len() != 0 {
		t.Fatal("not empty after draining")
	}
}

// TestLevelBoundaries: a deadline on each side of every level's boundary
// (64^L ms), in shuffled order, comes out in order.
func TestLevelBoundaries(t *testing.T) {
	var ds []int64
	for level := 0; level <= levels; level++ {
		edge := int64(1) << (levelBits * level) * ms
		for _, d := range []int64{edge - ms, edge - 1, edge, edge + 1, edge + ms} {
			ds = append(ds, d, d) // ties too
		}
	}
	rand.New(rand.NewPCG(1, 2)).Shuffle(len(ds), func(i, j int) { ds[i], ds[j] = ds[j], ds[i] })
	w := new(Wheel)
	for i, d := range ds {
		w.Push(d, uint32(i))
		mustCheck(t, w, "push")
	}
	if w.overflow == 0 || w.occupied[levels-1] == 0 {
		t.Fatalf("deadlines past 64^5 ms did not reach the top level and the overflow: %+v", w.occupied)
	}
	drain(t, w, ds)
}

// TestCascade: timers in one level-2 slot come down through levels 1 and
// 0 and out in order, the position moving only to the earliest.
func TestCascade(t *testing.T) {
	w := new(Wheel)
	base := int64(5000) * ms // level 2 from 0
	ds := []int64{base + 700*ms, base + 3, base, base + 64*ms, base + 1*ms, base}
	for i, d := range ds {
		w.Push(d, uint32(i))
	}
	if l := w.listOf(tickOf(base)); l/slotsPer != 2 {
		t.Fatalf("5000 ms went to level %d, want 2", l/slotsPer)
	}
	if when, _, _ := w.Peek(); when != base || w.elapsed != tickOf(base) {
		t.Fatalf("peek %d with the wheel at tick %d; want %d at %d", when, w.elapsed, base, tickOf(base))
	}
	mustCheck(t, w, "peek")
	drain(t, w, ds)
}

// TestOverflow: timers beyond the top level wait in the overflow list and
// come back, in order, after everything nearer, also when removed.
func TestOverflow(t *testing.T) {
	w := new(Wheel)
	far := int64(1) << (levelBits * levels) * ms // 64^6 ms
	ds := []int64{far * 3, far + 5*ms, math.MaxInt64, far + 5*ms, 10 * ms, far * 2}
	for i, d := range ds {
		w.Push(d, uint32(i))
	}
	if w.overflow != 5 {
		t.Fatalf("%d timers in the overflow, want 5", w.overflow)
	}
	w.Remove(1) // the overflow's earliest: its cached minimum goes stale
	mustCheck(t, w, "remove")
	ids := []uint32{0, 2, 3, 4, 5}
	slices.SortStableFunc(ids, func(a, b uint32) int {
		if ds[a] < ds[b] {
			return -1
		} else if ds[a] > ds[b] {
			return 1
		}
		return 0
	})
	for i, id := range ids {
		got, gid, _ := w.Pop()
		mustCheck(t, w, "pop")
		if got != ds[id] || gid != id {
			t.Fatalf("pop %d = (%d, %d), want (%d, %d)", i, got, gid, ds[id], id)
		}
	}
}

// TestJumpAhead: with nothing due for a year the wheel's position moves
// straight to the earliest timer, not a tick at a time; a timer pushed
// before that position afterwards still comes out first.
func TestJumpAhead(t *testing.T) {
	w := new(Wheel)
	year := int64(365*24*3600*1000) * ms
	w.Push(year, 0)
	w.Push(year+ms, 1)
	if when, _, _ := w.Peek(); when != year || w.elapsed != tickOf(year) {
		t.Fatalf("peek %d at tick %d", when, w.elapsed)
	}
	w.Push(5*ms, 2) // before the position: straight to the taken heap
	mustCheck(t, w, "push before the position")
	if when, id, _ := w.Pop(); when != 5*ms || id != 2 {
		t.Fatalf("pop = (%d, %d), want the early timer", when, id)
	}
	drain(t, w, []int64{year, year + ms}) // ids 0 and 1
}

// TestPast: deadlines in the past and negative ones come out first, in
// order.
func TestPast(t *testing.T) {
	w := new(Wheel)
	ds := []int64{10 * ms, -3 * ms, math.MinInt64, -1, 0, -3 * ms, 2}
	for i, d := range ds {
		w.Push(d, uint32(i))
	}
	mustCheck(t, w, "push")
	drain(t, w, ds)
}

// TestMillion: 10^6 pending timers over 10 s, a third removed, come out
// in order; nothing allocates in steady state.
func TestMillion(t *testing.T) {
	if testing.Short() {
		t.Skip("10^6 timers")
	}
	w := new(Wheel)
	r := rand.New(rand.NewPCG(7, 8))
	ds := make([]int64, 1_000_000)
	for i := range ds {
		ds[i] = r.Int64N(10_000 * ms)
		w.Push(ds[i], uint32(i))
	}
	for i := 0; i < len(ds); i += 3 {
		w.Remove(uint32(i))
	}
	mustCheck(t, w, "fill")
	prev := int64(math.MinInt64)
	n := 0
	for w.Len() > 0 {
		when, id, _ := w.Pop()
		if id%3 == 0 || when < prev || when != ds[id] {
			t.Fatalf("pop %d = (%d, %d) after %d", n, when, id, prev)
		}
		prev = when
		n++
	}
	if n != len(ds)-len(ds)/3-1 {
		t.Fatalf("%d popped", n)
	}
}
