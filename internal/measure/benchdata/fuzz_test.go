package benchdata

import (
	"bytes"
	"errors"
	"testing"

	"golang.org/x/perf/benchproc"
)

// FuzzRead reads arbitrary files as compare, gate and report do, with no
// filter and with one: never a panic; an error exactly when no benchmark
// line was read (ErrNoResults); every value read lands in one sample, with
// its line's iteration count. The seed corpus in testdata/fuzz/FuzzRead
// holds the heads of files run, peers and gate wrote, whole and cut.
func FuzzRead(f *testing.F) {
	f.Add([]byte("BenchmarkX-2\t10\t5 ns/op\n"))
	filter, err := benchproc.NewFilter("/ready:deque OR .unit:allocs/op")
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		all := checkRead(t, data, nil)
		if some := checkRead(t, data, filter); some.Results > all.Results {
			t.Fatalf("the filter kept %d results of %d", some.Results, all.Results)
		}
	})
}

// checkRead reads data through Read and checks the Set against itself.
func checkRead(t *testing.T, data []byte, filter *benchproc.Filter) *Set {
	s, err := Read(bytes.NewReader(data), "fuzz", filter)
	if s == nil {
		t.Fatalf("Read returned no Set (error %v)", err)
	}
	if (err != nil) != (s.Results == 0) || (err != nil && !errors.Is(err, ErrNoResults)) {
		t.Fatalf("%d results read, error %v", s.Results, err)
	}
	if len(s.Raw) != s.Results || len(s.KeyOrder) != len(s.Keys) {
		t.Fatalf("%d results, %d raw; %d keys in order, %d keys", s.Results, len(s.Raw), len(s.KeyOrder), len(s.Keys))
	}
	values := 0
	for _, r := range s.Raw {
		values += len(r.Values)
	}
	for _, smp := range s.Samples {
		if len(smp.Values) == 0 || len(smp.Values) != len(smp.Iters) {
			t.Fatalf("sample %s %s: %d values, %d iteration counts", smp.Name, smp.Unit, len(smp.Values), len(smp.Iters))
		}
		values -= len(smp.Values)
		s.Exact(smp.Unit)
		s.Better(smp.Unit)
	}
	if values != 0 {
		t.Fatalf("the samples hold %d values more or fewer than the lines read", -values)
	}
	return s
}
