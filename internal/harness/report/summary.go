package report

import (
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"text/tabwriter"
	"unicode/utf8"

	"golang.org/x/perf/benchunit"
)

// Note explains a table's cells.
const Note = "Each cell: the median over the runs ± the 95 % confidence interval of the median (benchmath, as benchstat; (n=…) where the runs are too few for one), and its ratio to the first column, the default variant where there is one, or ~ where the test cannot tell them apart. Go baselines in the same binary are marked (baseline), other event loops (peer)."

// Title is the table's heading: "Timers: sec/op (lower is better)".
func (t *Table) Title() string { return t.titleIn(t.Unit) }

// titleIn is the title with the values in unit (a figure's scaled unit).
func (t *Table) titleIn(unit string) string {
	s := fmt.Sprintf("%s: %s (%s)", t.Workload, unit, t.BetterText())
	if len(t.Common) > 0 {
		s += "; every row " + joinParts(bare(t.Common))
	}
	return s
}

// BetterText is "lower is better" or "higher is better": on every table
// and every plot's value axis.
func (t *Table) BetterText() string {
	if t.Better > 0 {
		return "higher is better"
	}
	return "lower is better"
}

// Header is the table's first line: "case" and the columns.
func (t *Table) Header() []string {
	h := []string{"case"}
	for _, c := range t.Cols {
		l := c.Label
		switch {
		case c.Baseline:
			l += " (baseline)"
		case c.Peer:
			l += " (peer)"
		}
		h = append(h, l)
	}
	return h
}

// Strings formats every row: its label, then each cell.
func (t *Table) Strings() [][]string { return t.format(false) }

// format formats every row; bold marks significant ratios in Markdown.
func (t *Table) format(bold bool) [][]string {
	var out [][]string
	for i, r := range t.Rows {
		var centers []float64
		for j := range t.Cols {
			if c := t.Cell(i, j); c != nil {
				centers = append(centers, c.Summary.Center)
			}
		}
		scale := benchunit.CommonScale(centers, benchunit.ClassOf(t.Unit))
		row := []string{r.Label}
		for j := range t.Cols {
			c := t.Cell(i, j)
			if c == nil {
				row = append(row, "-")
				continue
			}
			s := t.formatValue(scale, c.Summary.Center) + " " + c.spread()
			switch m := c.mark(); {
			case m == "":
			case bold && c.Significant:
				s += " **" + m + "**"
			default:
				s += " " + m
			}
			row = append(row, s)
		}
		out = append(out, row)
	}
	return out
}

// WriteMarkdown writes summary.md: the configuration on top, then one
// table per workload and unit.
func (rep *Report) WriteMarkdown(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "# %s\n\n", rep.Title)
	for _, ban := range rep.Banners {
		fmt.Fprintf(&b, "> **%s**\n\n", ban)
	}
	for _, kv := range rep.Config {
		fmt.Fprintf(&b, "- %s: %s\n", kv.Key, kv.Value)
	}
	for _, kv := range rep.Varying {
		fmt.Fprintf(&b, "- %s: %s (varies)\n", kv.Key, kv.Value)
	}
	for _, r := range rep.Runs {
		if len(rep.Machines) == 0 { // else each machine names its files
			fmt.Fprintf(&b, "- run %s: %s\n", r.Key, r.Value)
		}
	}
	for _, m := range rep.Machines {
		fmt.Fprintf(&b, "- machine %s\n", m)
	}
	fmt.Fprintf(&b, "- results: %d benchmark lines from %s\n", rep.Results, rep.sources())
	for _, c := range rep.Checks {
		fmt.Fprintf(&b, "- %s\n", c)
	}
	fmt.Fprintf(&b, "\n%s\n\n%s\n", Note, TestNote)
	for _, t := range rep.Tables {
		head := t.Header()
		fmt.Fprintf(&b, "\n## %s\n\n| %s |\n|%s\n", t.Title(), strings.Join(mdEscape(head), " | "), strings.Repeat("---|", len(head)))
		for _, r := range t.format(true) {
			fmt.Fprintf(&b, "| %s |\n", strings.Join(mdEscape(r), " | "))
		}
	}
	rep.writeWarnings(&b, 0)
	_, err := io.WriteString(w, b.String())
	return err
}

func mdEscape(cells []string) []string {
	out := make([]string, len(cells))
	for i, c := range cells {
		out[i] = strings.ReplaceAll(c, "|", `\|`)
	}
	return out
}

// WriteText writes the tables as aligned text.
func (rep *Report) WriteText(w io.Writer) error { return rep.WriteTextWidth(w, 0) }

// MaxWidth is the widest line of the printed summary: its tables keep the
// columns that fit, its prose is wrapped (the files keep every column).
const MaxWidth = 120

// WriteTextWidth writes the tables as aligned text for a terminal width
// columns wide: prose wrapped to it, a table keeps the columns that fit,
// the first (the default variant) always, and says how many more
// summary.md has. Width 0 keeps every column and wraps nothing.
func (rep *Report) WriteTextWidth(w io.Writer, width int) error {
	var b strings.Builder
	for _, ban := range rep.Banners {
		b.WriteString(wrap("!! "+ban, width))
	}
	for _, c := range rep.Checks {
		b.WriteString(wrap(c, width))
	}
	for _, m := range rep.Machines {
		b.WriteString(wrap("machine "+m.Label+": "+m.Desc, width))
	}
	b.WriteString(wrap(Note, width))
	for _, t := range rep.Tables {
		fmt.Fprintf(&b, "\n%s\n", t.Title())
		rows := append([][]string{t.Header()}, t.Strings()...)
		keep := fitColumns(rows, width)
		tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
		for _, r := range rows {
			fmt.Fprintln(tw, strings.Join(r[:keep], "\t"))
		}
		tw.Flush()
		if hidden := len(rows[0]) - keep; hidden > 0 {
			fmt.Fprintf(&b, "(%d more columns in summary.md and report.html)\n", hidden)
		}
	}
	if width > 0 {
		b.WriteString("\n" + wrap(TestNote, width))
	}
	rep.writeWarnings(&b, width)
	_, err := io.WriteString(w, b.String())
	return err
}

// fitColumns returns how many leading columns of rows fit in width with
// tabwriter's padding of 2: at least the case and one more.
func fitColumns(rows [][]string, width int) int {
	n := len(rows[0])
	if width <= 0 {
		return n
	}
	used := 0
	for j := range n {
		w := 0
		for _, r := range rows {
			w = max(w, utf8.RuneCountInString(r[j]))
		}
		used += w + 2
		if used > width && j >= 2 {
			return j
		}
	}
	return n
}

// writeWarnings lists the lines that could not be read, each wrapped to
// width (0: not wrapped).
func (rep *Report) writeWarnings(b *strings.Builder, width int) {
	if len(rep.Warnings) == 0 {
		return
	}
	fmt.Fprintf(b, "\nLines that could not be read (%d):\n", len(rep.Warnings))
	for _, w := range rep.Warnings {
		for _, l := range strings.SplitAfter(strings.TrimSuffix(wrap(w, max(width-2, 0)), "\n"), "\n") {
			b.WriteString("  " + strings.TrimSuffix(l, "\n") + "\n")
		}
	}
}

// wrap breaks s into lines of at most width runes at spaces (a word
// longer than width stays whole), each ended by a newline; width 0
// leaves s on one line.
func wrap(s string, width int) string {
	if width <= 0 {
		return s + "\n"
	}
	var b strings.Builder
	n := 0
	for _, word := range strings.Fields(s) {
		l := utf8.RuneCountInString(word)
		if n > 0 && n+1+l > width {
			b.WriteByte('\n')
			n = 0
		}
		if n > 0 {
			b.WriteByte(' ')
			n++
		}
		b.WriteString(word)
		n += l
	}
	b.WriteByte('\n')
	return b.String()
}

// Counts reports whether the table's unit counts (allocs/op, B/op,
// syscalls/op, instructions: Exact units): its values are printed and
// plotted as plain numbers, never on an SI scale taken from another cell
// (one allocation is 1, not 1000000000n next to a setup allocation
// amortised over b.N).
func (t *Table) Counts() bool {
	return t.Exact || strings.HasPrefix(t.Unit, "syscalls/")
}

// formatValue formats v on the row's scale, or plainly for counts.
func (t *Table) formatValue(scale benchunit.Scaler, v float64) string {
	if t.Counts() {
		return plainCount(v)
	}
	return scale.Format(v)
}

// plainCount formats a count: whole from 100 on, two decimals below
// (trailing zeros dropped), two significant digits under 1.
func plainCount(v float64) string {
	a := math.Abs(v)
	switch {
	case a == 0:
		return "0"
	case a >= 100:
		return strconv.FormatFloat(v, 'f', 0, 64)
	case a >= 1:
		s := strconv.FormatFloat(v, 'f', 2, 64)
		return strings.TrimSuffix(strings.TrimRight(s, "0"), ".")
	}
	return strconv.FormatFloat(v, 'g', 2, 64)
}
