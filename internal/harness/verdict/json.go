package verdict

import (
	"encoding/json"
	"io"
	"math"
)

// JSONReport is compare's and gate's -format json output: one object.
// Values are in the files' units (sec/op in seconds), unrounded; a number
// that is not finite (a delta from 0, a slowdown no sample size here could
// flag) is null, with the note saying why.
type JSONReport struct {
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
	Comparisons        []JSONComparison `json:"comparisons"`
	Undecided          []string         `json:"undecided"` // "group name unit" of each undecided comparison
	SetAside           []JSONSetAside   `json:"set_aside"` // measured but not judged
	BaseOnly           []string         `json:"base_only"` // benchmarks only base has
	HeadOnly           []string         `json:"head_only"` // benchmarks only head has
}

// JSONComparison is one benchmark in one unit.
type JSONComparison struct {
	Group      string      `json:"group,omitempty"`
	Name       string      `json:"name"`
	Unit       string      `json:"unit"`
	Verdict    string      `json:"verdict"` // ~, improved, regression or undecided
	Rule       string      `json:"rule"`    // u-test, exact, range or amortised
	Base       JSONSummary `json:"base"`
	Head       JSONSummary `json:"head"`
	Delta      *float64    `json:"delta"`      // head/base - 1 of the centers
	P          *float64    `json:"p"`          // the U test's p-value
	Level      *float64    `json:"level"`      // the Holm level p was held to
	MinEffect  float64     `json:"min_effect"` // with the benchmark's noise floor
	Detectable *float64    `json:"detectable"` // the smallest slowdown the test could have flagged
	Note       string      `json:"note,omitempty"`
}

// JSONSummary is one side: its center and interval (the U test's) or its
// median and range (the rules without a test), and its sample count.
type JSONSummary struct {
	Center *float64 `json:"center"`
	Lo     *float64 `json:"lo"`
	Hi     *float64 `json:"hi"`
	N      int      `json:"n"`
}

// JSONSetAside is a benchmark measured and not judged.
type JSONSetAside struct {
	Side   string  `json:"side"`
	Name   string  `json:"name"`
	Reason string  `json:"reason"`
	Spread float64 `json:"spread,omitempty"`
}

// num is x, or nil when x is not finite.
func num(x float64) *float64 {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return nil
	}
	return &x
}

// NewJSONReport is the report of command that exits with exit and
// message, on the judgment j (nil when the files could not be judged).
func NewJSONReport(command string, j *Judgment, exit int, message string) *JSONReport {
	r := &JSONReport{Command: command, Exit: exit, Message: message, Comparisons: []JSONComparison{}, Undecided: []string{}, SetAside: []JSONSetAside{}, BaseOnly: []string{}, HeadOnly: []string{}}
	r.Verdict = map[int]string{ExitPass: "pass", ExitRegression: "regression", ExitUndecided: "undecided"}[r.Exit]
	if r.Verdict == "" {
		r.Verdict = "error"
	}
	if j == nil {
		return r
	}
	v := j.Verdict
	r.Alpha, r.MinEffect, r.RequireEquivalence, r.Tests = v.Alpha, j.Options.MinEffect, j.Options.RequireEquivalence, v.Tests
	r.Improved, r.Regressed = v.Count(Improved), v.Count(Regressed)
	if d, c := v.Sensitivity(); c != nil {
		r.Detectable = num(d)
	}
	for i := range v.Comparisons {
		c := &v.Comparisons[i]
		r.Comparisons = append(r.Comparisons, JSONComparison{
			Group: c.Group, Name: c.Name, Unit: c.Unit, Verdict: jsonStatus(c.Status), Rule: c.Rule.String(),
			Base:  JSONSummary{num(c.BaseSum.Center), num(c.BaseSum.Lo), num(c.BaseSum.Hi), len(c.Base)},
			Head:  JSONSummary{num(c.HeadSum.Center), num(c.HeadSum.Lo), num(c.HeadSum.Hi), len(c.Head)},
			Delta: num(c.Delta), P: num(c.P), Level: num(c.Threshold), MinEffect: c.MinEffect,
			Detectable: num(v.Detectable(c)), Note: rowNote(v, c),
		})
		if c.Status == Undecided {
			r.Undecided = append(r.Undecided, joinName(c.Group, c.Name, c.Unit))
		}
	}
	r.BaseOnly = append(r.BaseOnly, j.Matched.BaseOnly...)
	r.HeadOnly = append(r.HeadOnly, j.Matched.HeadOnly...)
	return r
}

func jsonStatus(s Status) string {
	if s == Regressed {
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

// WriteJSON writes v, indented, with a final newline: the encoding of
// every -format json report.
func WriteJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

// Write writes the report (WriteJSON).
func (r *JSONReport) Write(w io.Writer) error { return WriteJSON(w, r) }
