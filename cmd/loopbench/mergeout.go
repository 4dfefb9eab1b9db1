package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/loopbench/loopbench/internal/harness/loadresult"
	"golang.org/x/perf/benchfmt"
)

func writeMergedTable(w io.Writer, m loadresult.Merged) error {
	fmt.Fprintf(w, "%s: %.0f req/s", loadresult.Plural(len(m.Generators), "generator"), m.Achieved)
	if m.Offered > 0 {
		fmt.Fprintf(w, " (offered %.0f)", m.Offered)
	}
	if m.Overlaps() {
		fmt.Fprintf(w, "; common window %v (%.0f%% of the longest)\n", m.End.Sub(m.Start).Round(time.Millisecond), 100*m.Overlap)
	} else {
		fmt.Fprintln(w, "; the windows do not overlap")
	}
	fmt.Fprintln(w, m.Accounting("the windows'"))
	rows := []loadresult.LatencyRow{{Name: "corrected", L: m.Corrected}, {Name: "uncorrected", L: m.Uncorrected}}
	if m.Offered > 0 {
		rows = append(rows, loadresult.LatencyRow{Name: "pacing lag", L: m.PacingLag})
	}
	if err := loadresult.WriteLatencies(w, "merged latency", rows...); err != nil {
		return err
	}
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "generator\trequests\treq/s\terrors\tp50\tp99\tmax\tlag p99\tcores\tstart\twindow\t")
	for _, r := range m.Generators {
		p := r.Corrected
		fmt.Fprintf(tw, "%s\t%d\t%.0f\t%d\t%v\t%v\t%v\t%v\t%.2f/%d\t%s\t%v\t\n", r.Name, r.Requests, r.Achieved, r.Errors,
			loadresult.Sig3(p.P50), loadresult.Sig3(p.P99), loadresult.Sig3(p.Max), loadresult.Sig3(r.PacingLag.P99), r.Cores(), r.CPUs,
			r.WindowStart.Format("15:04:05.000"), r.WindowEnd.Sub(r.WindowStart).Round(time.Millisecond))
	}
	return tw.Flush()
}

// mergedJSON is a merged run in merge's JSON: the merged result as load
// prints a run (its window from the earliest start to the latest end,
// its generator figures the generators' CPU summed over the longest wall
// time), and the common window when there is one.
type mergedJSON struct {
	Generators int `json:"generators"`
	loadresult.JSON
	CommonStart  *time.Time        `json:"common_window_start,omitempty"`
	CommonEnd    *time.Time        `json:"common_window_end,omitempty"`
	Overlap      float64           `json:"overlap"`
	Warnings     []string          `json:"warnings"`
	PerGenerator []mergedGenerator `json:"per_generator"`
}

// mergedGenerator is one generator's run in merge's JSON: its result as
// load prints a run.
type mergedGenerator struct {
	Name string `json:"name"`
	CPUs int    `json:"generator_cpus"`
	loadresult.JSON
}

func mergedToJSON(m loadresult.Merged) mergedJSON {
	out := mergedJSON{Generators: len(m.Generators), JSON: m.Result.JSON(), Overlap: m.Overlap,
		Warnings: append(append([]string{}, m.Refusals...), m.Warnings...)}
	if m.Overlaps() {
		out.CommonStart, out.CommonEnd = &m.Start, &m.End
	}
	for _, r := range m.Generators {
		out.PerGenerator = append(out.PerGenerator, mergedGenerator{Name: r.Name, CPUs: r.CPUs, JSON: r.JSON()})
	}
	return out
}

// writeMergedBenchfmt writes the merged run and each generator as
// benchmark lines (generator=merged, generator=<name>), in load's units
// (generator-cores of the merged line: the generators' sum).
func writeMergedBenchfmt(w io.Writer, m loadresult.Merged) error {
	bw := benchfmt.NewWriter(w)
	if err := loadresult.WriteUnits(bw, loadresult.Units); err != nil {
		return err
	}
	cfg := configOf([2]string{"generators", fmt.Sprint(len(m.Generators))})
	write := func(gen string, rep loadresult.Result) error {
		name := mergeName(m.Generators[0], gen, "")
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

// mergeName is the benchmark name of a merged line; rate, when set, is
// the step's /rate= key.
func mergeName(first loadresult.Result, gen, rate string) benchfmt.Name {
	name := fmt.Sprintf("Merge/label=%s/size=%d/generator=%s", nameSegment(first.Label), first.Size, nameSegment(gen))
	if rate != "" {
		name += "/rate=" + rate
	}
	return benchfmt.Name(name)
}

// writeMergedFiles says, in one line, why the merge has no series when
// it has none (the first step's reason, for sweeps), and writes -hgrm
// and -out.
func writeMergedFiles(merged []loadresult.Merged, o mergeOptions, stderr io.Writer) error {
	for _, m := range merged {
		if m.SeriesLeftOut == "" {
			continue
		}
		if m.Step != nil && len(merged) > 1 {
			fmt.Fprintf(stderr, "loopbench merge: step %d: %s\n", *m.Step+1, m.SeriesLeftOut)
		} else {
			fmt.Fprintf(stderr, "loopbench merge: %s\n", m.SeriesLeftOut)
		}
		break
	}
	rs := make([]loadresult.Result, len(merged))
	for i, m := range merged {
		rs[i] = m.Result
		rs[i].Name = mergedName(m.Generators)
	}
	if err := writeHgrm(o.hgrm, rs, stderr); err != nil {
		return err
	}
	if o.out == "" {
		return nil
	}
	var buf bytes.Buffer
	for _, r := range rs {
		if err := r.Write(&buf); err != nil {
			return err
		}
	}
	if err := os.WriteFile(o.out, buf.Bytes(), 0o644); err != nil {
		return fmt.Errorf("-out: %v", err)
	}
	fmt.Fprintf(stderr, "out: %s\n", o.out)
	return nil
}

// mergedName names a merged result by its generators: "a+b+c".
func mergedName(gens []loadresult.Result) string {
	names := make([]string, len(gens))
	for i, g := range gens {
		names[i] = g.Name
	}
	return strings.Join(names, "+")
}
