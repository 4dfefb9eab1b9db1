package gate

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loopbench/loopbench/internal/harness/callgrind"
	"github.com/loopbench/loopbench/internal/harness/verdict"
)

// TestHoldings: after a failed gate, what each side's file holds, read
// back from the files; a side without a file is left out.
func TestHoldings(t *testing.T) {
	dir := t.TempDir()
	base := filepath.Join(dir, "base.txt")
	os.WriteFile(base, []byte("side: base\nBenchmarkA-2\t10\t5 ns/op\nBenchmarkA-2\t10\t5 ns/op\nBenchmarkB-2\t10\t5 ns/op\n"), 0o644)
	head := filepath.Join(dir, "head.txt")
	os.WriteFile(head, []byte("side: head\n"), 0o644)
	res := &Result{Base: &Side{Name: "base", Path: base}, Head: &Side{Name: "head", Path: head}}
	want := " (" + base + " holds 2 benchmarks, up to 2 runs each; " + head + " holds no results)"
	if got, measured := holdings(res); got != want || !measured {
		t.Fatalf("holdings = %q %v, want %q", got, measured, want)
	}
	res.Head.Path = filepath.Join(dir, "missing.txt")
	if got, _ := holdings(res); !strings.HasSuffix(got, "up to 2 runs each)") {
		t.Fatalf("with no head file: %q", got)
	}
	res.Base.Path = head
	if got, measured := holdings(res); measured || !strings.HasSuffix(got, "holds no results)") {
		t.Fatalf("nothing measured: %q %v", got, measured)
	}
}

// TestEffectFollowsMethod: the default minimum effect of counts is a
// window's, or the difference of two processes' where a run counted so;
// a -min-effect given is kept.
func TestEffectFollowsMethod(t *testing.T) {
	jg := Judging{Options: verdict.Options{MinEffect: 0.005}, DefaultEffect: true}
	if jg.minEffect(MethodWindow) != 0.005 || jg.minEffect(MethodDifference) != DifferenceEffect {
		t.Error("default: not the method's")
	}
	jg = Judging{Options: verdict.Options{MinEffect: 0.02}}
	if jg.minEffect(MethodDifference) != 0.02 {
		t.Error("given: not kept")
	}
}

// TestRangeUndecided: the gate widens two sides' windows when the
// verdict's range rule could not tell them apart, in instructions or in
// est-cycles at its doubled minimum effect; never one side alone.
func TestRangeUndecided(t *testing.T) {
	counts := func(irs ...float64) []callgrind.Counts {
		var cs []callgrind.Counts
		for _, ir := range irs {
			cs = append(cs, callgrind.Counts{Ir: ir})
		}
		return cs
	}
	u := RangeUndecided(0.005)
	for _, c := range []struct {
		name  string
		sides [][]callgrind.Counts
		want  bool
	}{
		{"apart by less than the effect whatever the repeats", [][]callgrind.Counts{counts(1000, 1001), counts(1003, 1004)}, false},
		{"apart beyond it on every repeat", [][]callgrind.Counts{counts(1000, 1001), counts(1020, 1021)}, false},
		{"the ranges allow -0.53 % to -0.21 % (an A/A seen here)", [][]callgrind.Counts{counts(1381, 1385), counts(1378, 1378)}, true},
		{"one side", [][]callgrind.Counts{counts(1381, 1385)}, false},
	} {
		if got := u(c.sides); got != c.want {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
	}
}

// TestFinishListsWidened: the benchmarks counted at wider windows are
// listed with their iteration counts, and those not counted under the
// reason their harness gave, before the verdict; -format json carries
// both.
func TestFinishListsWidened(t *testing.T) {
	dir := t.TempDir()
	res := &Result{Base: &Side{Path: filepath.Join(dir, "base.txt")}, Head: &Side{Path: filepath.Join(dir, "head.txt")},
		Widened: []Widened{{Name: "Chain", Iters: 20000}},
		NotCounted: []callgrind.Skipped{{Name: "Timers/impl=afterfunc/p=1", Reason: "not countable: real clock"}, {Name: "Wait", Reason: "not countable: a wait"},
			{Name: "Timers/impl=afterfunc/p=2", Reason: "not countable: real clock"}, {Name: "Silent"}}}
	for _, p := range []string{res.Base.Path, res.Head.Path} {
		if err := os.WriteFile(p, []byte("BenchmarkChain 20000 450 instructions/op\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var out strings.Builder
	cfg := Config{Metric: "instructions"}
	if err := (&Judging{}).finish(&out, cfg, res); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "widened (1: ") || !strings.Contains(out.String(), "\n  Chain at 20000 iterations\n") {
		t.Fatalf("printed:\n%s", out.String())
	}
	want := "not counted (4: skipped by the benchmarks' harness when listed; not judged):\n" +
		"  not countable: real clock (2):\n    Timers/impl=afterfunc/p=1\n    Timers/impl=afterfunc/p=2\n" +
		"  not countable: a wait (1):\n    Wait\n  no reason given (1):\n    Silent\n"
	if !strings.Contains(out.String(), want) {
		t.Fatalf("printed:\n%s\nwant in it:\n%s", out.String(), want)
	}
	var js strings.Builder
	if err := NewJSONReport(cfg, res, nil, 0, "").Write(&js); err != nil {
		t.Fatal(err)
	}
	var rep JSONReport
	if err := json.Unmarshal([]byte(js.String()), &rep); err != nil || rep.Gate == nil || len(rep.Gate.NotCounted) != 4 ||
		rep.Gate.NotCounted[1] != (JSONNotCounted{"Wait", "not countable: a wait"}) || len(rep.Gate.Widened) != 1 || rep.Gate.Metric != "instructions" {
		t.Fatalf("json %v:\n%s", err, js.String())
	}
}
