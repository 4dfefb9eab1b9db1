package history

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"strings"
	"text/tabwriter"

	"github.com/loopbench/loopbench/internal/harness/verdict"
)

// Report is a history's change points, as history prints them.
type Report struct {
	History *History
	Options Options
	Changes []Change
	// Missing lists the benchmarks absent from some commits, each with
	// the commits (indices) that lack it.
	Missing []Missing
	Names   []string // the benchmarks, in the order first seen
}

// Missing is a benchmark absent from some of the commits.
type Missing struct {
	Name    string
	Commits []int
}

// Analyze finds h's change points (Detect) and the benchmarks some
// commits lack.
func Analyze(h *History, o Options) *Report {
	r := &Report{History: h, Options: o, Changes: Detect(h, o)}
	held := map[string][]bool{}
	for _, s := range h.Series {
		if held[s.Name] == nil {
			held[s.Name] = make([]bool, len(h.Commits))
			r.Names = append(r.Names, s.Name)
		}
		for _, at := range s.At {
			held[s.Name][at] = true
		}
	}
	for _, name := range r.Names {
		var lack []int
		for i, ok := range held[name] {
			if !ok {
				lack = append(lack, i)
			}
		}
		if len(lack) > 0 {
			r.Missing = append(r.Missing, Missing{name, lack})
		}
	}
	return r
}

// Write prints the report as format says, "text" (WriteText) or "json"
// (WriteJSON), and when dir is not "" also writes the page there
// (WriteDir), naming it after a text report.
func (r *Report) Write(w io.Writer, format, dir string) error {
	var err error
	if format == "json" {
		err = r.WriteJSON(w)
	} else {
		err = r.WriteText(w)
	}
	if err == nil && dir != "" {
		if _, err = r.WriteDir(dir); err == nil && format == "text" {
			fmt.Fprintf(w, "page: %s\n", filepath.Join(dir, "history.html"))
		}
	}
	return err
}

// WriteText prints the history's commits, its change points (or that
// there are none) and the benchmarks some commits lack.
func (r *Report) WriteText(w io.Writer) error {
	h := r.History
	c0, cn := h.Commits[0], h.Commits[len(h.Commits)-1]
	fmt.Fprintf(w, "history: %d commits, %s%s to %s%s; %d benchmarks\n", len(h.Commits), c0.Short(), when(c0), cn.Short(), when(cn), len(r.Names))
	fmt.Fprintf(w, "a change: levels apart by more than %s (est-cycles/op %s) with no value in common, each at least %d commit(s) long\n",
		pct(r.Options.MinEffect), pct(verdict.UnitMinEffect(verdict.EstCyclesUnit, r.Options.MinEffect)), max(r.Options.MinSegment, 1))
	switch {
	case len(h.Commits) == 1:
		fmt.Fprintln(w, "\none commit: no change point can be found.")
	case len(r.Changes) == 0:
		fmt.Fprintln(w, "\nno change point: every benchmark's counts held their level over the commits.")
	default:
		fmt.Fprintf(w, "\nchange points (%d):\n", len(r.Changes))
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "  commit\tbenchmark\tunit\tchange\tbefore: median [range] commits\tafter")
		for _, c := range r.Changes {
			fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\t%s\t%s\n", h.Commits[c.At].Short(), c.Name, c.Unit, signedPct(c.Delta), r.level(c.Before), r.level(c.After))
		}
		tw.Flush()
	}
	for _, m := range r.Missing {
		var names []string
		for _, i := range m.Commits {
			names = append(names, h.Commits[i].Short())
		}
		fmt.Fprintf(w, "missing: %s in %d of %d commits (not in %s)\n", m.Name, len(h.Commits)-len(m.Commits), len(h.Commits), strings.Join(names, ", "))
	}
	return nil
}

func when(c Commit) string {
	if c.Time == "" {
		return ""
	}
	return " (" + c.Time + ")"
}

// level formats a level: "2.1e+06 [2.098e+06 2.105e+06] c0…c2 (3)".
func (r *Report) level(l Level) string {
	cs := r.History.Commits
	return fmt.Sprintf("%.6g [%.6g %.6g] %s…%s (%d)", l.Median, l.Lo, l.Hi, cs[l.From].Short(), cs[l.To].Short(), l.Commits)
}

func pct(f float64) string { return fmt.Sprintf("%.3g%%", 100*f) }

func signedPct(f float64) string {
	if math.IsInf(f, 0) {
		return fmt.Sprintf("%+.0f", f)
	}
	return fmt.Sprintf("%+.2f%%", 100*f)
}

type jsonReport struct {
	Commits    []jsonCommit  `json:"commits"`
	MinEffect  float64       `json:"min_effect"`
	MinSegment int           `json:"min_segment"`
	Changes    []jsonChange  `json:"changes"`
	Missing    []jsonMissing `json:"missing"`
}

type jsonCommit struct {
	Commit     string   `json:"commit"`
	CommitTime string   `json:"commit_time,omitempty"`
	Files      []string `json:"files"`
}

type jsonChange struct {
	Benchmark string    `json:"benchmark"`
	Unit      string    `json:"unit"`
	Commit    string    `json:"commit"`
	Index     int       `json:"index"`
	Delta     *float64  `json:"delta"` // null from a level of 0
	Before    jsonLevel `json:"before"`
	After     jsonLevel `json:"after"`
}

type jsonLevel struct {
	From    string  `json:"from"`
	To      string  `json:"to"`
	Commits int     `json:"commits"`
	Median  float64 `json:"median"`
	Lo      float64 `json:"lo"`
	Hi      float64 `json:"hi"`
}

type jsonMissing struct {
	Benchmark string   `json:"benchmark"`
	Missing   []string `json:"missing_from"`
}

// WriteJSON writes the report as one JSON object.
func (r *Report) WriteJSON(w io.Writer) error {
	cs := r.History.Commits
	out := jsonReport{MinEffect: r.Options.MinEffect, MinSegment: max(r.Options.MinSegment, 1), Changes: []jsonChange{}, Missing: []jsonMissing{}}
	for _, c := range cs {
		out.Commits = append(out.Commits, jsonCommit{c.Commit, c.Time, c.Files})
	}
	lv := func(l Level) jsonLevel {
		return jsonLevel{cs[l.From].Commit, cs[l.To].Commit, l.Commits, l.Median, l.Lo, l.Hi}
	}
	for _, c := range r.Changes {
		jc := jsonChange{Benchmark: c.Name, Unit: c.Unit, Commit: cs[c.At].Commit, Index: c.At, Before: lv(c.Before), After: lv(c.After)}
		if !math.IsInf(c.Delta, 0) {
			d := c.Delta
			jc.Delta = &d
		}
		out.Changes = append(out.Changes, jc)
	}
	for _, m := range r.Missing {
		jm := jsonMissing{Benchmark: m.Name}
		for _, i := range m.Commits {
			jm.Missing = append(jm.Missing, cs[i].Commit)
		}
		out.Missing = append(out.Missing, jm)
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}
