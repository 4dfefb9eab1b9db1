package bench

import (
	"flag"
	"runtime/metrics"
	"slices"
	"strings"
	"testing"
)

// calls records a Timer's calls.
type calls struct{ got []string }

func (c *calls) ResetTimer()                  { c.got = append(c.got, "reset") }
func (c *calls) StartTimer()                  { c.got = append(c.got, "start") }
func (c *calls) StopTimer()                   { c.got = append(c.got, "stop") }
func (c *calls) ReportMetric(float64, string) { c.got = append(c.got, "metric") }

// TestWindowPassesThrough: the window forwards every call to the
// benchmark's timer in order and follows testing.B's on/off state.
func TestWindowPassesThrough(t *testing.T) {
	c := &calls{}
	w := &window{Timer: c, on: true}
	w.ResetTimer()
	w.StopTimer()
	if w.on {
		t.Fatal("on after StopTimer")
	}
	w.StopTimer()
	w.StartTimer()
	if !w.on {
		t.Fatal("off after StartTimer")
	}
	w.ReportMetric(1, "x/op")
	want := []string{"reset", "stop", "stop", "start", "metric"}
	if !slices.Equal(c.got, want) {
		t.Fatalf("calls %v, want %v", c.got, want)
	}
	// Natively Counted is the run itself.
	n := 0
	err := Counted(c, "X", 7, func(t Timer, k int) error {
		if t != Timer(c) {
			return nil
		}
		n = k
		return nil
	})
	if err != nil || n != 7 {
		t.Fatalf("Counted ran %d, err %v", n, err)
	}
}

// TestShortSet: the pull-request set is the full set without the Go
// runtime's baselines and the cases sized 10⁶, and keeps the rest.
func TestShortSet(t *testing.T) {
	full := Cases(Options{Workloads: []string{"CallSoon", "Timers"}})
	short := Cases(Options{Workloads: []string{"CallSoon", "Timers"}, Short: true})
	var dropped int
	for _, c := range full {
		nightly := strings.HasPrefix(c.Variant, "impl=") || strings.Contains(c.Params+"/", "=1000000/")
		kept := slices.ContainsFunc(short, func(s Case) bool { return s.Name() == c.Name() && s.Workload == c.Workload })
		if nightly == kept {
			t.Errorf("%s/%s: nightly only %v, in the short set %v", c.Workload, c.Name(), nightly, kept)
		}
		if nightly {
			dropped++
		}
	}
	if dropped == 0 || len(short) != len(full)-dropped {
		t.Fatalf("full %d, short %d, dropped %d", len(full), len(short), dropped)
	}
}

// TestHeapHeadroom: after heapHeadroom the page heap holds at least
// HeadroomBytes it can hand out without growing (free, or released to
// the system but still the heap's).
func TestHeapHeadroom(t *testing.T) {
	heapHeadroom()
	s := []metrics.Sample{{Name: "/memory/classes/heap/free:bytes"}, {Name: "/memory/classes/heap/released:bytes"}}
	metrics.Read(s)
	if got := s[0].Value.Uint64() + s[1].Value.Uint64(); got < HeadroomBytes {
		t.Fatalf("free heap %d bytes after heapHeadroom, want at least %d", got, HeadroomBytes)
	}
}

// TestCountedPass: with -test.benchtime=Nx the pass counted is the one of
// N iterations, the only pass for N = 1, never testing's first pass of one
// iteration before a larger N; with a duration, any pass of more than one.
func TestCountedPass(t *testing.T) {
	f := flag.Lookup("test.benchtime")
	if f == nil {
		t.Skip("no -test.benchtime flag in this binary")
	}
	saved := f.Value.String()
	t.Cleanup(func() { f.Value.Set(saved) })
	for _, c := range []struct {
		benchtime string
		n         int
		want      bool
	}{
		{"1x", 1, true}, {"5x", 1, false}, {"5x", 5, true}, {"5x", 7, false},
		{"100ms", 1, false}, {"100ms", 3, true},
	} {
		if err := f.Value.Set(c.benchtime); err != nil {
			t.Fatal(err)
		}
		if got := countedPass(c.n); got != c.want {
			t.Errorf("-test.benchtime=%s, a pass of %d: counted %v, want %v", c.benchtime, c.n, got, c.want)
		}
	}
}
