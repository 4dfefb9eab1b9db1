package machine

import (
	"strings"
	"testing"
	"time"
)

func at(sec float64, busy, self, steal, total float64) Sample {
	d := func(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }
	return Sample{At: time.Unix(0, 0).Add(d(sec)), Busy: d(busy), Self: d(self), Steal: d(steal), Total: d(total)}
}

// TestSpan: over 10 s, 12 s of CPU of which 4 s were this process's is
// 0.8 cores of others: busy; 1 s of others is 0.1 cores: quiet unless
// the hypervisor stole more than 2 %.
func TestSpan(t *testing.T) {
	busy := Span{at(0, 0, 0, 0, 0), at(10, 12, 4, 0, 20)}
	if c := busy.OthersCores(); c < 0.79 || c > 0.81 || !busy.Busy() {
		t.Fatalf("others %v busy %v", c, busy.Busy())
	}
	quiet := Span{at(0, 0, 0, 0, 0), at(10, 5, 4, 0.1, 20)}
	if quiet.Busy() {
		t.Fatalf("quiet span busy: %s", quiet)
	}
	stolen := Span{at(0, 0, 0, 0, 0), at(10, 5, 4, 1, 20)}
	if !stolen.Busy() {
		t.Fatalf("5%% steal not busy: %s", stolen)
	}
	// A 5 ms span with one 10 ms tick of others' CPU is too short to
	// tell, not two cores busy.
	short := Span{at(0, 0, 0, 0, 0), at(0.005, 0.01, 0, 0.01, 0.02)}
	if short.Busy() || !short.Short() || !strings.Contains(short.String(), "too short") {
		t.Fatalf("short span: busy %v %s", short.Busy(), short)
	}
	cfg := Config([]Span{quiet, busy})
	if cfg[0][0] != "machine-busy" || !strings.HasPrefix(cfg[0][1], "yes (rounds 2 ") || !strings.Contains(cfg[1][1], "r1 load") {
		t.Fatalf("config %v", cfg)
	}
}

// TestWaitIdle: waiting samples until the machine is quiet, within the
// limit, and gives up at the limit.
func TestWaitIdle(t *testing.T) {
	clock, others := 0.0, []float64{0.9, 0.5, 0.05}
	calls := 0
	sample := func() (Sample, error) {
		s := at(clock, 0, 0, 0, 100*clock)
		if calls%2 == 1 { // the end of a span: others' CPU over the second
			s.Busy = time.Duration(others[min(calls/2, len(others)-1)] * float64(time.Second))
			s.At = s.At.Add(time.Second)
		}
		calls++
		return s, nil
	}
	sleep := func(d time.Duration) {}
	_, idle, err := WaitIdle(time.Minute, time.Second, sample, sleep)
	if err != nil || !idle || calls != 6 {
		t.Fatalf("idle %v after %d samples, err %v", idle, calls, err)
	}
	calls = 0
	others = []float64{0.9}
	_, idle, _ = WaitIdle(3*time.Second, time.Second, sample, sleep)
	if idle || calls != 6 {
		t.Fatalf("gave up: idle %v after %d samples, want 6", idle, calls)
	}
}

// TestDescription: the host, cores and memory lines, memory out of
// /proc/meminfo's MemTotal in binary units.
func TestDescription(t *testing.T) {
	d := Description()
	if len(d) < 2 || d[0][0] != "machine-host" || d[0][1] == "" || d[1][0] != "machine-cores" || d[1][1] == "0" {
		t.Fatalf("description %q", d)
	}
	b, ok := parseMemTotal("MemFree:  10 kB\nMemTotal:        8131168 kB\n")
	if !ok || FormatBytes(b) != "7.8 GiB" {
		t.Errorf("MemTotal 8131168 kB read as %d (%s), %v", b, FormatBytes(b), ok)
	}
	if _, ok := parseMemTotal("MemFree: 1 kB\n"); ok {
		t.Error("no MemTotal read as one")
	}
	for b, want := range map[uint64]string{512: "512 B", 1536: "1.5 KiB", 1 << 40: "1.0 TiB"} {
		if got := FormatBytes(b); got != want {
			t.Errorf("FormatBytes(%d) = %q, want %q", b, got, want)
		}
	}
}
