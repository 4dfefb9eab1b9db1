package main

import (
	"encoding/json"
	"io"
	"math"

	"github.com/loopbench/loopbench/internal/verdict"
)

// jsonReport is compare's and gate's -format json output: one object.
// Values are in the files' units (sec/op in seconds), unrounded; a number
// that is not finite (a delta from 0, a slowdown no sample size here could
// flag) is null, with the note saying why.
type jsonReport struct {
	Command string `json:"command"` // compare or gate
	Exit    int    `json:"exit"`    // the exit code: 0 pass, 1 regression, 2 error, 3 undecided
	Message string `json:"message,omitempty"`
	// Verdict is pass, regression, error or undecided, as Exit.
	Verdict            string           `json:"verdict"`
	Alpha              float64          `json:"alpha,omitempty"`
	MinEffect          float64          `json:"min_effect,omitempty"`
	RequireEquivalence bool             `json:"require_equivalence"`
	Tests              int              `json:"tests"`
	Detectable         *float64         `json:"detectable"` // the smallest slowdown every tested comparison could have flagged
	Improved           int              `json:"improved"`
	Regressed          int              `json:"regressed"`
	Comparisons        []jsonComparison `json:"comparisons"`
	Undecided          []string         `json:"undecided"` // "group name unit" of each undecided comparison
	SetAside           []jsonSetAside   `json:"set_aside"` // measured but not judged
	BaseOnly           []string         `json:"base_only"` // benchmarks only base has
	HeadOnly           []string         `json:"head_only"` // benchmarks only head has
	Gate               *jsonGate        `json:"gate,omitempty"`
}

// jsonComparison is one benchmark in one unit.
type jsonComparison struct {
	Group      string      `json:"group,omitempty"`
	Name       string      `json:"name"`
	Unit       string      `json:"unit"`
	Verdict    string      `json:"verdict"` // ~, improved, regression or undecided
	Rule       string      `json:"rule"`    // u-test, exact, range or amortised
	Base       jsonSummary `json:"base"`
	Head       jsonSummary `json:"head"`
	Delta      *float64    `json:"delta"`      // head/base - 1 of the centers
	P          *float64    `json:"p"`          // the U test's p-value
	Level      *float64    `json:"level"`      // the Holm level p was held to
	MinEffect  float64     `json:"min_effect"` // with the benchmark's noise floor
	Detectable *float64    `json:"detectable"` // the smallest slowdown the test could have flagged
	Note       string      `json:"note,omitempty"`
}

// jsonSummary is one side: its center and interval (the U test's) or its
// median and range (the rules without a test), and its sample count.
type jsonSummary struct {
	Center *float64 `json:"center"`
	Lo     *float64 `json:"lo"`
	Hi     *float64 `json:"hi"`
	N      int      `json:"n"`
}

// jsonSetAside is a benchmark measured and not judged.
type jsonSetAside struct {
	Side   string  `json:"side"`
	Name   string  `json:"name"`
	Reason string  `json:"reason"`
	Spread float64 `json:"spread,omitempty"`
}

// jsonGate is what a gate ran.
type jsonGate struct {
	Metric     string   `json:"metric"`
	BaseRev    string   `json:"base_rev"`
	BaseCommit string   `json:"base_commit"`
	HeadRev    string   `json:"head_rev"`
	HeadCommit string   `json:"head_commit"`
	Rounds     int      `json:"rounds"`
	BaseRuns   int      `json:"base_runs"`
	HeadRuns   int      `json:"head_runs"`
	Seed       uint64   `json:"seed"`
	Files      []string `json:"files"`
	// Widened: benchmarks counted again at wider windows (instructions).
	Widened []jsonWidened `json:"widened,omitempty"`
	// NotCounted: benchmarks the harness skipped when listed, not judged
	// (instructions).
	NotCounted []jsonNotCounted `json:"not_counted,omitempty"`
}

// jsonNotCounted is a benchmark not counted, and the reason its harness
// gave.
type jsonNotCounted struct {
	Name   string `json:"name"`
	Reason string `json:"reason"`
}

// jsonWidened is a benchmark counted at Iters iterations a window after
// its counts at fewer could not decide it.
type jsonWidened struct {
	Name  string `json:"name"`
	Iters int    `json:"iters"`
}

// num is x, or nil when x is not finite.
func num(x float64) *float64 {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return nil
	}
	return &x
}

// newJSONReport is the report of command with the exit error err and the
// judgment j (nil when the files could not be judged).
func newJSONReport(command string, j *judgment, err error) *jsonReport {
	r := &jsonReport{Command: command, Exit: exitCode(err), Comparisons: []jsonComparison{}, Undecided: []string{}, SetAside: []jsonSetAside{}, BaseOnly: []string{}, HeadOnly: []string{}}
	r.Verdict = map[int]string{0: "pass", 1: "regression", 3: "undecided"}[r.Exit]
	if r.Verdict == "" {
		r.Verdict = "error"
	}
	if err != nil {
		r.Message = err.Error()
	}
	if j == nil {
		return r
	}
	v := j.v
	r.Alpha, r.MinEffect, r.RequireEquivalence, r.Tests = v.Alpha, j.o.MinEffect, j.o.RequireEquivalence, v.Tests
	r.Improved, r.Regressed = v.Count(verdict.Improved), v.Count(verdict.Regressed)
	if d, c := v.Sensitivity(); c != nil {
		r.Detectable = num(d)
	}
	for i := range v.Comparisons {
		c := &v.Comparisons[i]
		r.Comparisons = append(r.Comparisons, jsonComparison{
			Group: c.Group, Name: c.Name, Unit: c.Unit, Verdict: jsonStatus(c.Status), Rule: c.Rule.String(),
			Base:  jsonSummary{num(c.BaseSum.Center), num(c.BaseSum.Lo), num(c.BaseSum.Hi), len(c.Base)},
			Head:  jsonSummary{num(c.HeadSum.Center), num(c.HeadSum.Lo), num(c.HeadSum.Hi), len(c.Head)},
			Delta: num(c.Delta), P: num(c.P), Level: num(c.Threshold), MinEffect: c.MinEffect,
			Detectable: num(v.Detectable(c)), Note: rowNote(v, c),
		})
		if c.Status == verdict.Undecided {
			r.Undecided = append(r.Undecided, joinName(c.Group, c.Name, c.Unit))
		}
	}
	r.BaseOnly = append(r.BaseOnly, j.m.BaseOnly...)
	r.HeadOnly = append(r.HeadOnly, j.m.HeadOnly...)
	return r
}

func jsonStatus(s verdict.Status) string {
	if s == verdict.Regressed {
		return "regression"
	}
	return s.String()
}

// joinName is a comparison's name as a reader sees it: group, name, unit.
func joinName(parts ...string) string {
	out := ""
	for _, p := range parts {
		if p == "" {
			continue
		}
		if out != "" {
			out += " "
		}
		out += p
	}
	return out
}

// write writes the report, indented, with a final newline.
func (r *jsonReport) write(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(r)
}
