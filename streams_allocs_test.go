package loopbench

import (
	"testing"
)

// TestStreamReadAllocs: a read that waits for its data allocates the
// bytes it returns, and nothing per wait besides: the reader's wait
// future is reset and used again, and a read that takes the whole buffer
// takes the buffer itself, without a copy (the next feed allocates the
// next one).
func TestStreamReadAllocs(t *testing.T) {
	l, err := New(Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	r := NewStreamReader(l, 0)
	data := make([]byte, 1024)
	var got [][]byte
	tk := l.CreateTask(func(tk *Task) (any, error) {
		for {
			b, err := r.Read(tk, len(data))
			if err != nil {
				return nil, err
			}
			got = append(got[:0], b)
		}
	})
	// One iteration runs what is ready: the task's first step, which
	// waits; then, after each feed, the step that reads and waits again.
	// (An iteration with nothing ready would block.)
	step := l.runOnce
	step()
	allocs := testing.AllocsPerRun(100, func() {
		got = got[:0]
		r.FeedData(data)
		step()
		if len(got) != 1 || len(got[0]) != len(data) {
			t.Fatalf("read %d slices, want one of %d bytes", len(got), len(data))
		}
	})
	if allocs != 1 {
		t.Errorf("allocations per waiting read: %v; want 1 (the bytes read)", allocs)
	}
	tk.Cancel("")
	l.runOnce()
}
