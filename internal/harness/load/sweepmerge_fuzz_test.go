package load

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/loopbench/loopbench/internal/measure/loadresult"
)

// FuzzMergeFile merges everything a file holds as merge does (the results
// read before a malformed line included): never a panic; single runs and
// sweep steps are never merged together; a merged run, and each step of a
// merged sweep, sums its generators' requests; a merged sweep's steps are
// 0, 1, ... each run by every generator. Seeds: two generators' runs and
// sweeps, even and uneven, and a sweep step among single runs.
func FuzzMergeFile(f *testing.F) {
	run := func(name string, start time.Time) loadresult.Result {
		return synth(f, name, start, 2*time.Second, []int64{100, 200, 300, 5000}, 1)
	}
	sweep := func(name string, steps int) string {
		var b strings.Builder
		for k := range steps {
			b.WriteString(line(f, run(name, t0.Add(time.Duration(k)*5*time.Second)).AsStep(k, time.Millisecond, 0.01)))
		}
		return b.String()
	}
	f.Add([]byte(line(f, run("gen-1", t0)) + "a log line\n" + line(f, run("gen-2", t0.Add(time.Second)))))
	f.Add([]byte(sweep("gen-1", 2) + sweep("gen-2", 2)))
	f.Add([]byte(sweep("gen-1", 3) + sweep("gen-2", 1)))
	f.Add([]byte(line(f, run("gen-1", t0)) + sweep("gen-2", 1)))
	f.Fuzz(func(t *testing.T, data []byte) {
		rs, _ := loadresult.Read("fuzz", bytes.NewReader(data))
		if len(rs) == 0 {
			return
		}
		steps := 0
		for _, r := range rs {
			if r.Step != nil {
				steps++
			}
		}
		sweep, err := IsSweep(rs)
		if mixed := steps > 0 && steps < len(rs); (err != nil) != mixed || sweep != (steps > 0 && !mixed) {
			t.Fatalf("%d steps of %d results: IsSweep = %v, %v", steps, len(rs), sweep, err)
		}
		switch {
		case err != nil:
		case sweep:
			checkMergedSweep(t, rs)
		default:
			m, err := loadresult.MergeGenerators(rs)
			if err != nil {
				t.Fatal(err)
			}
			checkSums(t, m, rs)
		}
	})
}

// checkMergedSweep merges the sweep steps rs and checks the merged steps.
func checkMergedSweep(t *testing.T, rs []loadresult.Result) {
	ms, err := MergeSweeps(rs)
	if err != nil {
		return
	}
	for k, s := range ms.Steps {
		if s.Index != k || len(s.Merged.Generators) != len(ms.Generators) {
			t.Fatalf("merged step %d is step %d of %d generators, want of %d", k, s.Index, len(s.Merged.Generators), len(ms.Generators))
		}
		for _, r := range s.Merged.Generators {
			if *r.Step != k {
				t.Fatalf("merged step %d holds %s's step %d", k, r.Name, *r.Step)
			}
		}
		checkSums(t, s.Merged, s.Merged.Generators)
	}
}

// checkSums checks that m's requests are those of rs summed.
func checkSums(t *testing.T, m loadresult.Merged, rs []loadresult.Result) {
	var requests int64
	for _, r := range rs {
		requests += r.Requests
	}
	if m.Requests != requests || len(m.Generators) != len(rs) {
		t.Fatalf("%d results of %d requests merged as %d of %d", len(rs), requests, len(m.Generators), m.Requests)
	}
}

// line is r as a line of a result file.
func line(t testing.TB, r loadresult.Result) string {
	var b bytes.Buffer
	if err := r.Write(&b); err != nil {
		t.Fatal(err)
	}
	return b.String()
}
