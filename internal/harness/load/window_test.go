package load

import (
	"testing"
	"time"
)

// TestMarkWindow: the CPU mark is the one taken when the window opens;
// the start's when there is no warmup, or when the run ended before the
// window opened.
func TestMarkWindow(t *testing.T) {
	start := cpuMark{cpu: 2 * time.Second, at: time.Now()}
	taken := make(chan struct{})
	now := func() cpuMark {
		close(taken)
		return cpuMark{cpu: 7 * time.Second, at: start.at.Add(time.Millisecond)}
	}
	get := markWindow(time.Millisecond, start, now)
	<-taken
	if got := get(); got.cpu != 7*time.Second {
		t.Errorf("window opened: CPU mark %v, want the window's 7s", got.cpu)
	}
	never := func() cpuMark { t.Error("a mark was taken for a window that never opened"); return cpuMark{} }
	if got := markWindow(time.Hour, start, never)(); got != start {
		t.Errorf("run over before the window: mark %v, want the start's", got)
	}
	if got := markWindow(0, start, never)(); got != start {
		t.Errorf("no warmup: mark %v, want the start's", got)
	}
}

// TestSpinTickWindow: spinning is counted from the window's start on,
// as the CPU it is taken from is.
func TestSpinTickWindow(t *testing.T) {
	w := &worker{run: &shared{s: schedule{measure: 10, end: 100}}, rec: newRecorder()}
	w.sends.spinning = true
	for _, step := range []struct{ now, want time.Duration }{
		{8, 0},   // in the warmup
		{15, 5},  // across the window's start: from 10 on
		{20, 10}, // in the window
	} {
		w.spinTick(step.now)
		if w.rec.spin != step.want {
			t.Fatalf("after a tick at %d: spin %d, want %d", step.now, w.rec.spin, step.want)
		}
	}
}
