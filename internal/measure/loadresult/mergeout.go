package loadresult

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"
	"time"

	"golang.org/x/perf/benchfmt"
)

// WriteMergedTable writes a merge as `loopbench merge` prints it: the
// summed rates and the common window, the accounting, the merged
// latencies, and a row per generator.
func WriteMergedTable(w io.Writer, m Merged) error {
	fmt.Fprintf(w, "%s: %.0f req/s", Plural(len(m.Generators), "generator"), m.Achieved)
	if m.Offered > 0 {
		fmt.Fprintf(w, " (offered %.0f)", m.Offered)
	}
	if m.Overlaps() {
		fmt.Fprintf(w, "; common window %v (%.0f%% of the longest)\n", m.End.Sub(m.Start).Round(time.Millisecond), 100*m.Overlap)
	} else {
		fmt.Fprintln(w, "; the windows do not overlap")
	}
	fmt.Fprintln(w, m.Accounting("the windows'"))
	rows := []LatencyRow{{Name: "corrected", L: m.Corrected}, {Name: "uncorrected", L: m.Uncorrected}}
	if m.Offered > 0 {
		rows = append(rows, LatencyRow{Name: "pacing lag", L: m.PacingLag})
	}
	if err := WriteLatencies(w, "merged latency", rows...); err != nil {
		return err
	}
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "generator\trequests\treq/s\terrors\tp50\tp99\tmax\tlag p99\tcores\tstart\twindow\t")
	for _, r := range m.Generators {
		p := r.Corrected
		fmt.Fprintf(tw, "%s\t%d\t%.0f\t%d\t%v\t%v\t%v\t%v\t%.2f/%d\t%s\t%v\t\n", r.Name, r.Requests, r.Achieved, r.Errors,
			Sig3(p.P50), Sig3(p.P99), Sig3(p.Max), Sig3(r.PacingLag.P99), r.Cores(), r.CPUs,
			r.WindowStart.Format("15:04:05.000"), r.WindowEnd.Sub(r.WindowStart).Round(time.Millisecond))
	}
	return tw.Flush()
}

// MergedJSON is a merge in merge's JSON: the merged result as load
// prints a run (its window from the earliest start to the latest end,
// its generator figures the generators' CPU summed over the longest wall
// time), and the common window when there is one.
type MergedJSON struct {
	Generators int `json:"generators"`
	JSON
	CommonStart  *time.Time        `json:"common_window_start,omitempty"`
	CommonEnd    *time.Time        `json:"common_window_end,omitempty"`
	Overlap      float64           `json:"overlap"`
	Warnings     []string          `json:"warnings"`
	PerGenerator []MergedGenerator `json:"per_generator"`
}

// MergedGenerator is one generator's run in merge's JSON: its result as
// load prints a run.
type MergedGenerator struct {
	Name string `json:"name"`
	CPUs int    `json:"generator_cpus"`
	JSON
}

// MergeJSON is the merge in merge's JSON.
func (m Merged) MergeJSON() MergedJSON {
	out := MergedJSON{Generators: len(m.Generators), JSON: m.Result.JSON(), Overlap: m.Overlap,
		Warnings: append(append([]string{}, m.Refusals...), m.Warnings...)}
	if m.Overlaps() {
		out.CommonStart, out.CommonEnd = &m.Start, &m.End
	}
	for _, r := range m.Generators {
		out.PerGenerator = append(out.PerGenerator, MergedGenerator{Name: r.Name, CPUs: r.CPUs, JSON: r.JSON()})
	}
	return out
}

// WriteMergedBenchfmt writes the merged run and each generator as
// benchmark lines (generator=merged, generator=<name>), in Units
// (generator-cores of the merged line: the generators' sum).
func WriteMergedBenchfmt(w io.Writer, m Merged) error {
	bw := benchfmt.NewWriter(w)
	if err := WriteUnits(bw, Units); err != nil {
		return err
	}
	cfg := ConfigOf([2]string{"generators", fmt.Sprint(len(m.Generators))})
	write := func(gen string, rep Result) error {
		name := MergeName(m.Generators[0], gen, "")
		return bw.Write(&benchfmt.Result{Config: cfg, Name: name, Iters: int(max(rep.Requests, 1)), Values: rep.Values()})
	}
	if err := write("merged", m.Result); err != nil {
		return err
	}
	for _, r := range m.Generators {
		if err := write(r.Name, r); err != nil {
			return err
		}
	}
	return nil
}

// MergeName is the benchmark name of a merged line, after the first
// generator's label and size; rate, when set, is a step's /rate= key.
func MergeName(first Result, gen, rate string) benchfmt.Name {
	name := fmt.Sprintf("Merge/label=%s/size=%d/generator=%s", NameSegment(first.Label), first.Size, NameSegment(gen))
	if rate != "" {
		name += "/rate=" + rate
	}
	return benchfmt.Name(name)
}

// MergedName names a merged result by its generators: "a+b+c".
func MergedName(gens []Result) string {
	names := make([]string, len(gens))
	for i, g := range gens {
		names[i] = g.Name
	}
	return strings.Join(names, "+")
}

// WriteMergedFiles writes a merge's files: one line on w saying why it
// has no series, when it has none (the first step's reason, named, for
// sweeps); the merged corrected histogram to hgrm and the merged results
// (MergedResults, load -out's format) to out, when given, each named on
// w. The errors name the flags.
func WriteMergedFiles(w io.Writer, merged []Merged, hgrm, out string) error {
	for _, m := range merged {
		if m.SeriesLeftOut == "" {
			continue
		}
		if m.Step != nil && len(merged) > 1 {
			fmt.Fprintf(w, "loopbench merge: step %d: %s\n", *m.Step+1, m.SeriesLeftOut)
		} else {
			fmt.Fprintf(w, "loopbench merge: %s\n", m.SeriesLeftOut)
		}
		break
	}
	rs := make([]Result, len(merged))
	for i, m := range merged {
		rs[i] = m.Result
		rs[i].Name = MergedName(m.Generators)
	}
	if err := WriteHgrmFile(w, hgrm, rs); err != nil || out == "" {
		return err
	}
	var buf bytes.Buffer
	for _, r := range rs {
		if err := r.Write(&buf); err != nil {
			return err
		}
	}
	if err := os.WriteFile(out, buf.Bytes(), 0o644); err != nil {
		return fmt.Errorf("-out: %v", err)
	}
	fmt.Fprintf(w, "out: %s\n", out)
	return nil
}

// CheckRefusals returns the refusals as one line, unless force, and
// writes a warning line on w for each refusal forced and each warning.
func CheckRefusals(w io.Writer, refusals, warnings []string, force bool) error {
	if len(refusals) > 0 && !force {
		more := ""
		if len(refusals) > 1 {
			more = fmt.Sprintf(" (and %d more)", len(refusals)-1)
		}
		return fmt.Errorf("refused: %s%s; -force merges anyway", refusals[0], more)
	}
	for _, r := range refusals {
		fmt.Fprintf(w, "loopbench merge: warning: forced: %s\n", r)
	}
	for _, s := range warnings {
		fmt.Fprintf(w, "loopbench merge: warning: %s\n", s)
	}
	return nil
}
