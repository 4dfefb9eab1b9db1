package main

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/loopbench/loopbench"
	"github.com/loopbench/loopbench/bench"
	"github.com/montanaflynn/stats"
)

// noisy is the spread (median absolute deviation over the median) above
// which a cell is marked.
const noisy = 0.10

// headline is the unit a workload's summary shows, and whether higher is
// better; the rest is in raw.txt.
func headline(workload string) (unit string, higher bool) {
	switch workload {
	case "IOChain":
		return "us/write", false
	case "Echo":
		return "req/s", true
	}
	return "ns/op", false
}

// summary collects the headline values of every case over the rounds.
type summary struct {
	workloads []string
	tables    map[string]*table
	skipped   []string
}

type table struct {
	rows, cols []string
	cells      map[[2]string][]float64
}

func newSummary() *summary { return &summary{tables: map[string]*table{}} }

func (s *summary) table(w string) *table {
	t := s.tables[w]
	if t == nil {
		t = &table{cells: map[[2]string][]float64{}}
		s.tables[w] = t
		s.workloads = append(s.workloads, w)
	}
	return t
}

func (s *summary) add(c bench.Case, res bench.Result) {
	unit, _ := headline(c.Workload)
	v := res.NsPerOp
	for _, m := range res.Metrics {
		if m.Unit == unit {
			v = m.Value
		}
	}
	t := s.table(c.Workload)
	if !slices.Contains(t.rows, c.Params) {
		t.rows = append(t.rows, c.Params)
	}
	if !slices.Contains(t.cols, c.Variant) {
		t.cols = append(t.cols, c.Variant)
	}
	k := [2]string{c.Params, c.Variant}
	t.cells[k] = append(t.cells[k], v)
}

func (s *summary) skip(c bench.Case, err error) {
	s.skipped = append(s.skipped, fmt.Sprintf("%s/%s: %v", c.Workload, c.Name(), err))
}

// columns puts the default variant first.
func (t *table) columns() []string {
	def := loopbench.Config{}.String()
	cols := []string{}
	if slices.Contains(t.cols, def) {
		cols = append(cols, def)
	}
	for _, c := range t.cols {
		if c != def {
			cols = append(cols, c)
		}
	}
	return cols
}

// shortName drops the keys of a variant name: ringbuffer/heap4ary/epoll.
func shortName(v string) string {
	parts := strings.Split(v, "/")
	for i, p := range parts {
		if _, val, ok := strings.Cut(p, "="); ok && !strings.HasPrefix(p, "impl=") {
			parts[i] = val
		}
	}
	return strings.Join(parts, "/")
}

// cell formats the median, its spread and its ratio to ref (the default
// variant's median, 0 when there is none).
func cell(vals []float64, ref float64) string {
	if len(vals) == 0 {
		return "-"
	}
	med, _ := stats.Median(vals)
	mad, _ := stats.MedianAbsoluteDeviationPopulation(vals)
	spread := 0.0
	if med != 0 {
		spread = mad / med
	}
	s := fmt.Sprintf("%s ±%.0f%%", formatValue(med), 100*spread)
	if spread > noisy {
		s += "!"
	}
	if ref > 0 && med > 0 {
		s += fmt.Sprintf(" ×%.2f", med/ref)
	}
	return s
}

func formatValue(v float64) string {
	switch {
	case v == 0 || math.Abs(v) >= 100:
		return fmt.Sprintf("%.0f", v)
	case math.Abs(v) >= 10:
		return fmt.Sprintf("%.1f", v)
	}
	return fmt.Sprintf("%.3g", v)
}

// render prints one table per workload, as text or Markdown.
func (s *summary) render(markdown bool) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Each cell: median over the rounds ±spread (median absolute deviation; ! above %.0f%%) ×ratio to the first column.\n", 100*noisy)
	for _, w := range s.workloads {
		t := s.tables[w]
		unit, higher := headline(w)
		better := map[bool]string{false: "lower", true: "higher"}[higher]
		cols := t.columns()
		head := []string{"case"}
		for _, c := range cols {
			head = append(head, shortName(c))
		}
		var rows [][]string
		for _, r := range t.rows {
			ref := 0.0
			if vals := t.cells[[2]string{r, cols[0]}]; len(vals) > 0 {
				ref, _ = stats.Median(vals)
			}
			row := []string{r}
			for _, c := range cols {
				row = append(row, cell(t.cells[[2]string{r, c}], ref))
			}
			rows = append(rows, row)
		}
		title := fmt.Sprintf("%s (%s, %s is better; ratios to %s)", w, unit, better, shortName(cols[0]))
		if markdown {
			writeMarkdown(&b, title, head, rows)
		} else {
			writeText(&b, title, head, rows)
		}
	}
	if len(s.skipped) > 0 {
		fmt.Fprintf(&b, "\nskipped:\n")
		for _, sk := range s.skipped {
			fmt.Fprintf(&b, "  %s\n", sk)
		}
	}
	return b.String()
}

func writeText(b *strings.Builder, title string, head []string, rows [][]string) {
	fmt.Fprintf(b, "\n%s\n", title)
	tw := tabwriter.NewWriter(b, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, strings.Join(head, "\t"))
	for _, r := range rows {
		fmt.Fprintln(tw, strings.Join(r, "\t"))
	}
	tw.Flush()
}

func writeMarkdown(b *strings.Builder, title string, head []string, rows [][]string) {
	fmt.Fprintf(b, "\n## %s\n\n| %s |\n|%s\n", title, strings.Join(head, " | "), strings.Repeat("---|", len(head)))
	for _, r := range rows {
		fmt.Fprintf(b, "| %s |\n", strings.Join(r, " | "))
	}
}
