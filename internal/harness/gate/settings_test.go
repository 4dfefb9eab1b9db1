package gate

import (
	"io"
	"testing"

	"github.com/loopbench/loopbench/internal/harness/verdict"
)

// settings are gate's flags' defaults, as the command line gives them
// with the flags named in given.
func settings(given ...string) Settings {
	s := Settings{Bench: ".", Count: 10, Metric: "wall", Method: "auto", Repeat: 2, MaxRepeat: 5, Jobs: 2, MaxSpread: "0.5%",
		Verdict: verdict.Settings{Alpha: 0.05, Format: "text"}, Given: map[string]bool{}}
	for _, g := range given {
		s.Given[g] = true
	}
	return s
}

// TestSettingsDefaults: the minimum effect and -benchtime follow the
// metric unless given, and the configuration and judging carry them.
func TestSettingsDefaults(t *testing.T) {
	cases := []struct {
		name          string
		s             Settings
		effect        float64
		benchtime     string
		window        string
		defaultEffect bool
	}{
		{"wall", settings(), 0.05, "100ms", "", false},
		{"instructions", func() Settings { s := settings(); s.Metric = "instructions"; return s }(), 0.005, "20ms", WindowBenchtime, true},
		{"instructions, given", func() Settings {
			s := settings("min-effect", "benchtime")
			s.Metric, s.Verdict.MinEffect, s.Benchtime = "instructions", "2%", "1ms"
			return s
		}(), 0.02, "1ms", "", false},
	}
	for _, c := range cases {
		if err := c.s.Check(); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		cfg, jg := c.s.Config("dir", "out", nil, io.Discard), c.s.Judging()
		if jg.Options.MinEffect != c.effect || cfg.Benchtime != c.benchtime || cfg.Callgrind.WindowBenchtime != c.window || jg.DefaultEffect != c.defaultEffect {
			t.Errorf("%s: min effect %g, benchtime %q, window %q, default effect %v; want %g, %q, %q, %v",
				c.name, jg.Options.MinEffect, cfg.Benchtime, cfg.Callgrind.WindowBenchtime, jg.DefaultEffect, c.effect, c.benchtime, c.window, c.defaultEffect)
		}
	}
}

// TestSettingsConfig: the instructions metric's method, baseline and
// save-only map onto the run; a wall-time run keeps none of them.
func TestSettingsConfig(t *testing.T) {
	for _, c := range []struct {
		change           func(*Settings)
		metric, method   string
		aa, headOnly     bool
		baseline         string
		repeat, maxRepet int
	}{
		{func(s *Settings) {}, "", "", false, false, "", 0, 0},
		{func(s *Settings) { s.Metric, s.Method = "instructions", "windows" }, "instructions", MethodWindow, false, false, "", 2, 5},
		{func(s *Settings) { s.Metric, s.Method, s.Repeat = "instructions", "difference", 3 }, "instructions", MethodDifference, false, false, "", 3, 5},
		{func(s *Settings) { s.Metric, s.Baseline = "instructions", "main.txt" }, "instructions", "", true, false, "main.txt", 2, 5},
		{func(s *Settings) { s.Metric, s.SaveOnly = "instructions", "main.txt" }, "instructions", "", true, true, "", 2, 5},
	} {
		s := settings()
		c.change(&s)
		if err := s.Check(); err != nil {
			t.Fatal(err)
		}
		cfg := s.Config("dir", "out", nil, io.Discard)
		if cfg.Metric != c.metric || cfg.Method != c.method || cfg.AA != c.aa || cfg.HeadOnly != c.headOnly || cfg.Baseline != c.baseline ||
			cfg.Callgrind.Repeat != c.repeat || cfg.Callgrind.MaxRepeat != c.maxRepet || (cfg.Callgrind.Undecided != nil) != (c.metric != "") {
			t.Errorf("%+v: config %+v", s, cfg)
		}
	}
}

// TestSettingsSequential: -min-count judges at each look's share of
// -alpha; without it the rounds are fixed, at -alpha.
func TestSettingsSequential(t *testing.T) {
	s := settings()
	s.MinCount, s.Count = 10, 60
	if err := s.Check(); err != nil {
		t.Fatal(err)
	}
	jg := s.Judging()
	if jg.Sequential == nil || jg.Options.Alpha != 0.05/4 || jg.Sequential.Level != 0.05/4 {
		t.Fatalf("sequential %+v, alpha %g; want 4 looks at %g", jg.Sequential, jg.Options.Alpha, 0.05/4)
	}
	s = settings()
	if err := s.Check(); err != nil {
		t.Fatal(err)
	}
	if jg := s.Judging(); jg.Sequential != nil || jg.Options.Alpha != 0.05 {
		t.Fatalf("fixed rounds: sequential %+v, alpha %g", jg.Sequential, jg.Options.Alpha)
	}
}

// TestSettingsRefused: each refusal is one line naming the flag, in the
// order the checks run: the metric's, the rounds', then the verdict's.
func TestSettingsRefused(t *testing.T) {
	for _, c := range []struct {
		change func(*Settings)
		want   string
	}{
		{func(s *Settings) { s.Given["repeat"] = true }, "-repeat applies to -metric instructions"},
		{func(s *Settings) { s.Metric, s.Repeat = "instructions", 1 }, "-repeat 1: want at least 2"},
		{func(s *Settings) { s.Count, s.Verdict.MinEffect = 3, "5" }, "-count 3: the U test on 3+3 rounds cannot reach p<=0.05"},
		{func(s *Settings) { s.Verdict.MinEffect = "5" }, `-min-effect "5"`},
		{func(s *Settings) { s.Verdict.Force = true }, "-force does not apply to gate"},
		{func(s *Settings) { s.Metric, s.WriteFloor = "instructions", "f.txt" }, "-write-floor applies to wall time"},
	} {
		s := settings()
		c.change(&s)
		if err := s.Check(); err == nil || len(err.Error()) < len(c.want) || err.Error()[:len(c.want)] != c.want {
			t.Errorf("%+v: %v; want %q", s, err, c.want)
		}
	}
}
