package load

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/loopbench/loopbench/internal/measure/loadresult"
)

// steps builds synthetic steps at 1000, 2000, ... req/s from verdict
// codes: m met, b behind, s over the SLO, e errors; a trailing C, L or N
// marks the generator CPU-bound, late or connection-bound.
func steps(codes ...string) []StepOutcome {
	out := make([]StepOutcome, len(codes))
	for i, c := range codes {
		v := Verdict{Behind: c[0] == 'b', OverSLO: c[0] == 's', Errored: c[0] == 'e'}
		v.CPUBound = strings.HasSuffix(c, "C")
		v.Late = strings.HasSuffix(c, "L")
		v.ConnBound = strings.HasSuffix(c, "N")
		out[i] = StepOutcome{Offered: float64(1000 * (i + 1)), Verdict: v}
	}
	return out
}

func TestFindKnee(t *testing.T) {
	for _, c := range []struct {
		name  string
		steps []StepOutcome
		rate  float64
		lower bool
		note  string
	}{
		{"clean", steps("m", "m", "m", "b", "s"), 3000, false, ""},
		{"the highest met, past a noisy step", steps("m", "s", "m", "b", "b"), 3000, false, ""},
		{"errors end it", steps("m", "m", "e"), 2000, false, ""},
		{"every step met", steps("m", "m", "m"), 3000, true, "every step up to the last was met"},
		{"none met", steps("b", "b"), 0, false, "knee is below 1000 req/s"},
		{"nothing measured", nil, 0, false, "no step was measured"},
		{"generator CPU-bound at a met step: not there, nor past it", steps("m", "m", "mC", "m", "b", "b"), 2000, true, "CPU-bound at 3000 req/s"},
		{"generator late where the server seemed to fail: left out", steps("m", "m", "bL", "m", "b"), 4000, false, ""},
		{"generator late between the knee and the server's failure", steps("m", "m", "bL", "s", "b"), 2000, true, "late at 3000 req/s"},
		{"generator late at the first step only", steps("mL", "m", "m", "b"), 3000, false, ""},
		{"generator late at the last step", steps("m", "m", "mL"), 2000, true, "late at 3000 req/s"},
		{"generator late, then the server failed every step", steps("bL", "b", "s"), 0, false, "knee is below 2000 req/s"},
		{"generator late at every step", steps("mL", "bL"), 0, false, "late from the first step on"},
		{"generator connection-bound at a step: left out", steps("m", "bN", "m", "s"), 3000, false, ""},
		{"the server failed before the generator was late", steps("m", "b", "b", "mL"), 1000, false, ""},
		{"the generator limited from the first step", steps("bC", "m", "m"), 0, false, "CPU-bound from the first step on"},
	} {
		t.Run(c.name, func(t *testing.T) {
			k := FindKnee(c.steps)
			if k.Rate != c.rate || k.LowerBound != c.lower || !strings.Contains(k.Note, c.note) || (c.note == "") != (k.Note == "") {
				t.Fatalf("FindKnee = %+v, want rate %v, lower bound %v, note with %q", k, c.rate, c.lower, c.note)
			}
			if (k.Step >= 0) != (k.Rate > 0) || k.Step >= 0 && c.steps[k.Step].Offered != k.Rate {
				t.Fatalf("knee step %d for rate %v", k.Step, k.Rate)
			}
		})
	}
}

func TestJudge(t *testing.T) {
	c := Criteria{SLO: time.Millisecond, MaxErrors: 0.01}
	ok := Figures{Offered: 1000, Achieved: 990, P99: time.Millisecond, ErrorRate: 0.01, PacingLagP99: 100 * time.Microsecond}
	if v := c.Judge(ok); !v.Met() || v.GeneratorLimited() || v.String() != "met" {
		t.Fatalf("on the bounds: %+v", v)
	}
	behind, slow, errs, late := ok, ok, ok, ok
	behind.Achieved = 989
	slow.P99 = time.Millisecond + 1
	errs.ErrorRate = 0.0101
	late.PacingLagP99 = 100*time.Microsecond + 1
	for _, f := range []struct {
		f    Figures
		want string
	}{{behind, "behind"}, {slow, "over SLO"}, {errs, "errors"}, {late, "generator late"}} {
		if v := c.Judge(f.f); v.String() != f.want {
			t.Errorf("%+v judged %q, want %q", f.f, v, f.want)
		}
	}
}

// fakeRuns returns a step runner that reports the given achieved rates
// in turn (p99 1 ms), recording each step's config.
func fakeRuns(achieved []float64, got *[]Config) func(context.Context, Config) (loadresult.Result, error) {
	return func(_ context.Context, cfg Config) (loadresult.Result, error) {
		i := len(*got)
		*got = append(*got, cfg)
		if i >= len(achieved) {
			return loadresult.Result{}, errors.New("connection refused")
		}
		start := cfg.StartAt.Add(cfg.Warmup)
		return loadresult.Result{Offered: cfg.Rate, Achieved: achieved[i], Scheduled: 1, Answered: 1, Corrected: loadresult.Latencies{P99: time.Millisecond},
			WindowStart: start, WindowEnd: start.Add(cfg.Duration), Elapsed: cfg.Duration}, nil
	}
}

// TestSweepStopsAndAligns: steps on a fixed grid from StartAt; the sweep
// stops after the second step in a row that fell behind, not after one.
func TestSweepStopsAndAligns(t *testing.T) {
	at := time.Date(2026, 11, 23, 10, 0, 0, 0, time.UTC)
	var got []Config
	sc := SweepConfig{Run: Config{Warmup: time.Second, Duration: 2 * time.Second, Timeout: time.Second}, Rates: []float64{100, 200, 300, 400, 500, 600},
		Criteria: Criteria{SLO: 10 * time.Millisecond, MaxErrors: 0.01}, StartAt: at}
	sc.run = fakeRuns([]float64{100, 150, 300, 300, 300, 600}, &got)
	var each []int
	sw, err := RunSweep(context.Background(), sc, func(s Step) { each = append(each, s.Index) })
	if err != nil {
		t.Fatal(err)
	}
	if len(sw.Steps) != 5 || len(each) != 5 || !strings.Contains(sw.Stop, "two steps in a row, the last at 500") {
		t.Fatalf("%d steps (%v), stop %q; want 5, stopped at 500 req/s", len(sw.Steps), each, sw.Stop)
	}
	if sw.Knee.Rate != 300 || sw.Knee.LowerBound {
		t.Fatalf("knee %+v, want 300 req/s", sw.Knee)
	}
	for i, cfg := range got {
		if want := at.Add(time.Duration(i) * 4500 * time.Millisecond); !cfg.StartAt.Equal(want) || cfg.Rate != sc.Rates[i] {
			t.Errorf("step %d starts at %v at %v req/s, want %v (the period: warmup, window, timeout, 0.5 s)", i, cfg.StartAt, cfg.Rate, want)
		}
	}
	// A step that cannot connect ends the sweep with an error naming it.
	got = nil
	sc.run = fakeRuns([]float64{100}, &got)
	sw, err = RunSweep(context.Background(), sc, nil)
	if err == nil || !strings.Contains(err.Error(), "step 2 (200 req/s): connection refused") || len(sw.Steps) != 1 {
		t.Fatalf("RunSweep = %d steps, %v", len(sw.Steps), err)
	}
}

// TestSweepRemeasuresLateStep: a step the generator was late in is
// measured once more, and the second measurement counts: one late
// measurement no longer voids the sweep. An aligned sweep measures each
// step once.
func TestSweepRemeasuresLateStep(t *testing.T) {
	calls := 0
	late := map[int]bool{1: true} // the first measurement of step 1 (200 req/s)
	run := func(_ context.Context, cfg Config) (loadresult.Result, error) {
		defer func() { calls++ }()
		rep := loadresult.Result{Offered: cfg.Rate, Achieved: cfg.Rate, Scheduled: 1, Answered: 1, Elapsed: cfg.Duration, Corrected: loadresult.Latencies{P99: time.Millisecond}}
		if late[calls] {
			rep.PacingLag.P99 = time.Second
		}
		return rep, nil
	}
	sc := SweepConfig{Run: Config{Duration: time.Second}, Rates: []float64{100, 200, 300}, Criteria: Criteria{SLO: 10 * time.Millisecond, MaxErrors: 0.01}, run: run}
	sw, err := RunSweep(context.Background(), sc, nil)
	if err != nil {
		t.Fatal(err)
	}
	if calls != 4 || len(sw.Steps) != 3 || !sw.Steps[1].Remeasured || sw.Steps[1].Verdict.Late || sw.Knee.Rate != 300 {
		t.Fatalf("%d runs, steps %+v, knee %v; want 4 runs, step 2 measured again and on time, knee 300", calls, sw.Steps, sw.Knee)
	}
	calls = 0
	sc.StartAt = time.Date(2026, 11, 23, 10, 0, 0, 0, time.UTC)
	sw, err = RunSweep(context.Background(), sc, nil)
	if err != nil || calls != 3 || !sw.Steps[1].Verdict.Late || sw.Steps[1].Remeasured {
		t.Fatalf("aligned: %d runs, %v; want 3, step 2 late as measured", calls, err)
	}
}

func TestParseRates(t *testing.T) {
	for spec, want := range map[string][]float64{
		"2000,4000,8000":  {2000, 4000, 8000},
		"100:300:x1.5":    {100, 150, 225},
		"1000:1000:x2":    {1000},
		"10:12:x1.01":     {10, 11, 12}, // rounded, never repeated
		"2000:5488:x1.4":  {2000, 2800, 3920, 5488},
		" 2000 , 2500.5 ": {2000, 2500.5},
	} {
		got, err := ParseRates(spec)
		if err != nil || len(got) != len(want) {
			t.Fatalf("ParseRates(%q) = %v, %v; want %v", spec, got, err, want)
		}
		for i := range want {
			if got[i] != want[i] {
				t.Fatalf("ParseRates(%q) = %v, want %v", spec, got, want)
			}
		}
	}
	if rs, _ := ParseRates("2000:400000:x1.4"); len(rs) != 16 || rs[len(rs)-1] > 400000 {
		t.Fatalf("2000:400000:x1.4 = %v", rs)
	}
	for spec, want := range map[string]string{
		"":                  `"" is not a rate`,
		"fast":              `"fast" is not a rate`,
		"2000,1000":         "rate 1000 after 2000: a sweep rises",
		"0,100":             "rate 0: want more than 0",
		"NaN":               `"NaN" is not a rate`,
		"2000:400:x1.4":     "end 400 is below the start 2000",
		"2000:400000:1.4":   "want START:END:xFACTOR",
		"2000:400000":       "want START:END:xFACTOR",
		"2000:400000:x1":    "factor x1: want more than 1",
		"2000:400000:xy":    `"y" is not a number`,
		"0.5:10:x2":         "start 0.5: want at least 1",
		"1:1e12:x1.0001":    "more than 200 steps",
		"1:2:x2:x3":         "want START:END:xFACTOR",
		"1e400:1e401:x2":    `"1e400" is not a number`,
		"100,200,300,-1,50": "rate -1: want more than 0",
	} {
		_, err := ParseRates(spec)
		if err == nil || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("ParseRates(%q) = %v, want one line with %q", spec, err, want)
		}
	}
}

// TestSweepDropsInterruptedStep: a step the context ended in (a report
// of zeros, or a start never reached) is left out of the steps and the
// knee, which stays a lower bound: the sweep did not see the server fail.
func TestSweepDropsInterruptedStep(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	calls := 0
	run := func(_ context.Context, cfg Config) (loadresult.Result, error) {
		calls++
		if cfg.Rate == 300 {
			cancel()
			return loadresult.Result{Offered: cfg.Rate, Interrupted: true, Duration: cfg.Duration}, nil
		}
		return loadresult.Result{Offered: cfg.Rate, Achieved: cfg.Rate, Scheduled: 1, Answered: 1, Elapsed: cfg.Duration, Corrected: loadresult.Latencies{P99: time.Millisecond}}, nil
	}
	sc := SweepConfig{Run: Config{Duration: time.Second}, Rates: []float64{100, 200, 300, 400}, Criteria: Criteria{SLO: 10 * time.Millisecond, MaxErrors: 0.01}, run: run}
	var each []int
	sw, err := RunSweep(ctx, sc, func(s Step) { each = append(each, s.Index) })
	if err != nil || calls != 3 || len(sw.Steps) != 2 || len(each) != 2 || !sw.Interrupted || sw.Stop != "interrupted in step 3 (300 req/s), which is left out" {
		t.Fatalf("%d runs, %d steps, each %v, interrupted %v, stop %q, %v", calls, len(sw.Steps), each, sw.Interrupted, sw.Stop, err)
	}
	if sw.Knee.Rate != 200 || !sw.Knee.LowerBound {
		t.Fatalf("knee %+v: want at least 200 req/s, from the steps measured", sw.Knee)
	}
	// Ended before a step starts, or while it waits for its start: no
	// step, no error.
	calls = 0
	sw, err = RunSweep(ctx, sc, nil)
	if err != nil || calls != 0 || len(sw.Steps) != 0 || !sw.Interrupted || sw.Knee.Rate != 0 {
		t.Fatalf("cancelled: %d runs, %d steps, interrupted %v, %v", calls, len(sw.Steps), sw.Interrupted, err)
	}
	wctx, wcancel := context.WithCancel(context.Background())
	sc.run = func(context.Context, Config) (loadresult.Result, error) {
		wcancel()
		return loadresult.Result{Interrupted: true}, errors.New("interrupted while waiting for the start")
	}
	if sw, err = RunSweep(wctx, sc, nil); err != nil || !sw.Interrupted || len(sw.Steps) != 0 {
		t.Fatalf("interrupted waiting: %d steps, interrupted %v, %v", len(sw.Steps), sw.Interrupted, err)
	}
}

// TestKneeConfig: a knee line's configuration carries LowerBound under
// its own key, read back typed whatever the "knee" text says.
// TestKneeConfig: a knee line's configuration carries every field of
// the knee on its own key, and KneeOf reads them back equal, whatever
// the "knee" text says; an absent or malformed key reads as zero.
func TestKneeConfig(t *testing.T) {
	for _, k := range []Knee{
		{Rate: 2000, Step: 0, LowerBound: true, Note: "every step up to the last was met"},
		{Rate: 2000, Step: 0, Ceiling: 4000, LeftOut: 2},
		{Step: -1, Note: "no step was measured"},
	} {
		kv := map[string]string{}
		for _, c := range k.Config() {
			kv[c[0]] = c[1]
		}
		if len(kv) != 5 || kv["knee"] != k.String() {
			t.Errorf("%+v: config %q", k, kv)
		}
		kv["knee"] = "knee at least 1 req/s: reworded"
		if got := KneeOf(k.Rate, func(key string) string { return kv[key] }); got != k {
			t.Errorf("KneeOf(Config(%+v)) = %+v", k, got)
		}
	}
	bad := map[string]string{LowerBoundKey: "knee at least", CeilingKey: "x", LeftOutKey: "-"}
	if got := KneeOf(0, func(key string) string { return bad[key] }); got != (Knee{Step: -1}) {
		t.Errorf("malformed keys read as %+v", got)
	}
}

// TestKneeCeilingLeftOut: the knee names the generator's ceiling (the
// first CPU-bound step's rate) and counts the steps below it that the
// generator limited and the knee left out.
func TestKneeCeilingLeftOut(t *testing.T) {
	for _, c := range []struct {
		steps   []StepOutcome
		ceiling float64
		leftOut int
	}{
		{steps("m", "m", "b", "b"), 0, 0},
		{steps("m", "bL", "m", "mN", "mC", "bL"), 5000, 2},
		{steps("mC", "mL"), 1000, 0},
	} {
		if k := FindKnee(c.steps); k.Ceiling != c.ceiling || k.LeftOut != c.leftOut {
			t.Errorf("FindKnee = %+v, want ceiling %v and %d left out", k, c.ceiling, c.leftOut)
		}
	}
}
