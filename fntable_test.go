package loopbench

import (
	"reflect"
	"testing"
	"time"
)

// TestSlotsHoldNoPointers: the slot table is what grows with every pending
// timer; the garbage collector must have nothing to scan in it, nor a
// write barrier to run when it grows.
func TestSlotsHoldNoPointers(t *testing.T) {
	st := reflect.TypeFor[slot]()
	for i := range st.NumField() {
		switch f := st.Field(i); f.Type.Kind() {
		case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
			reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		default:
			t.Errorf("slot.%s is a %s: the slot table must hold no pointers", f.Name, f.Type)
		}
	}
}

// TestFnTableCellsStay: a callback's cell keeps its address while the
// table grows by chunks, so growing copies no pointer.
func TestFnTableCellsStay(t *testing.T) {
	var ft fnTable
	ft.reserve(1)
	fn := func() {}
	first := ft.at(0)
	*first = fn
	ft.reserve(5*fnChunk + 1)
	if len(ft.chunks) != 6 {
		t.Fatalf("reserve(%d) made %d chunks, want 6", 5*fnChunk+1, len(ft.chunks))
	}
	if ft.at(0) != first || *ft.at(0) == nil {
		t.Fatal("the cell of slot 0 moved or lost its callback when the table grew")
	}
	if ft.at(fnChunk) == ft.at(fnChunk-1) {
		t.Fatal("slots on either side of a chunk boundary share a cell")
	}
}

// TestTimersAcrossChunks: timers whose slots span several chunks of the
// callback table fire and cancel by the right slot.
func TestTimersAcrossChunks(t *testing.T) {
	l, err := New(Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	const n = 3*fnChunk + 7
	fired := make([]int, n)
	hs := make([]TimerHandle, n)
	for i := range n {
		hs[i] = l.CallLater(time.Duration(i%5)*time.Microsecond, func() { fired[i]++ })
	}
	for i := 0; i < n; i += 3 {
		hs[i].Cancel()
	}
	l.CallLater(time.Millisecond, l.Stop)
	if err := l.RunForever(); err != nil {
		t.Fatal(err)
	}
	for i, f := range fired {
		if want := map[bool]int{true: 0, false: 1}[i%3 == 0]; f != want {
			t.Fatalf("timer %d fired %d times, want %d", i, f, want)
		}
	}
}
