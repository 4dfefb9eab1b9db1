package main

import (
	"fmt"
	"io"
	"text/tabwriter"
	"time"

	"github.com/loopbench/loopbench/internal/load"
	"github.com/loopbench/loopbench/internal/loadresult"
	"golang.org/x/perf/benchfmt"
)

func writeMergedTable(w io.Writer, m loadresult.Merged) error {
	fmt.Fprintf(w, "%d generators: %d requests, %.0f req/s", len(m.Generators), m.Requests, m.AchievedRPS)
	if m.OfferedRPS > 0 {
		fmt.Fprintf(w, " (offered %.0f)", m.OfferedRPS)
	}
	fmt.Fprintf(w, ", %d errors", m.Errors)
	if m.Errors > 0 {
		fmt.Fprintf(w, " (%.3g%%)", 100*m.ErrorRate())
	}
	if m.Overlaps() {
		fmt.Fprintf(w, "; common window %v (%.0f%% of the longest)\n", m.End.Sub(m.Start).Round(time.Millisecond), 100*m.Overlap)
	} else {
		fmt.Fprintln(w, "; the windows do not overlap")
	}
	if m.Answered != m.Scheduled {
		fmt.Fprintf(w, "the windows' %d requests: %d answered, %d timed out, %d failed otherwise, %d unsent\n", m.Scheduled, m.Answered, m.TimedOut, m.Errors-m.TimedOut, m.Unsent)
	}
	rows := []latencyRow{{"corrected", m.Corrected}, {"uncorrected", m.Uncorrected}}
	if m.OfferedRPS > 0 {
		rows = append(rows, latencyRow{"pacing lag", m.PacingLag})
	}
	if err := writeLatencies(w, "merged latency", rows...); err != nil {
		return err
	}
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "generator\trequests\treq/s\terrors\tp50\tp99\tmax\tlag p99\tcores\tstart\twindow\t")
	for _, r := range m.Generators {
		p := load.Percentiles(r.Corrected())
		fmt.Fprintf(tw, "%s\t%d\t%.0f\t%d\t%v\t%v\t%v\t%v\t%.2f/%d\t%s\t%v\t\n", r.Name, r.Requests, r.AchievedRPS, r.Errors,
			sig3(p.P50), sig3(p.P99), sig3(p.Max), sig3(load.Percentiles(r.PacingLag()).P99), r.CPUCores, r.CPUs,
			r.WindowStart.Format("15:04:05.000"), r.WindowEnd.Sub(r.WindowStart).Round(time.Millisecond))
	}
	return tw.Flush()
}

// mergedJSON is a merged run in merge's JSON: the merged figures as load
// prints a run (its window from the earliest start to the latest end),
// and the common window when there is one.
type mergedJSON struct {
	Generators int `json:"generators"`
	load.JSONRun
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
	load.JSONRun
}

func mergedToJSON(m loadresult.Merged) mergedJSON {
	out := mergedJSON{Generators: len(m.Generators), JSONRun: mergedReport(m).JSON(), Overlap: m.Overlap,
		Warnings: append(append([]string{}, m.Refusals...), m.Warnings...)}
	if m.Overlaps() {
		out.CommonStart, out.CommonEnd = &m.Start, &m.End
	}
	for _, r := range m.Generators {
		out.PerGenerator = append(out.PerGenerator, mergedGenerator{Name: r.Name, CPUs: r.CPUs, JSONRun: generatorReport(r).JSON()})
	}
	return out
}

// mergedReport is a merged run as load.Report: the sums, the merged
// percentiles, the generators' cores added up, and the window from the
// earliest start to the latest end.
func mergedReport(m loadresult.Merged) load.Report {
	rep := load.Report{Label: m.Generators[0].Label, Offered: m.OfferedRPS, Achieved: m.AchievedRPS, Requests: m.Requests,
		Scheduled: m.Scheduled, Answered: m.Answered, TimedOut: m.TimedOut, Unsent: m.Unsent, Errors: m.Errors, Overflow: m.Overflow,
		Corrected: m.Corrected, Uncorrected: m.Uncorrected, PacingLag: m.PacingLag, Wall: time.Second}
	for i, r := range m.Generators {
		rep.CPU += time.Duration(r.CPUCores * float64(time.Second))
		rep.Behind = rep.Behind || r.Behind
		rep.Interrupted = rep.Interrupted || r.Interrupted
		if i == 0 || r.WindowStart.Before(rep.WindowStart) {
			rep.WindowStart = r.WindowStart
		}
		if r.WindowEnd.After(rep.WindowEnd) {
			rep.WindowEnd = r.WindowEnd
		}
	}
	rep.Elapsed = rep.WindowEnd.Sub(rep.WindowStart)
	return rep
}

// generatorReport is one generator's result as load.Report.
func generatorReport(r loadresult.Result) load.Report {
	return load.Report{Label: r.Label, Offered: r.OfferedRPS, Achieved: r.AchievedRPS, Requests: r.Requests,
		Scheduled: r.Scheduled, Answered: r.Answered, TimedOut: r.TimedOut, Unsent: r.Unsent, Errors: r.Errors, Overflow: r.Overflow,
		Corrected: load.Percentiles(r.Corrected()), Uncorrected: load.Percentiles(r.Uncorrected()), PacingLag: load.Percentiles(r.PacingLag()),
		Behind: r.Behind, Interrupted: r.Interrupted, WindowStart: r.WindowStart, WindowEnd: r.WindowEnd, Elapsed: r.WindowEnd.Sub(r.WindowStart),
		CPU: time.Duration(r.CPUCores * float64(time.Second)), Wall: time.Second}
}

// writeMergedBenchfmt writes the merged run and each generator as
// benchmark lines (generator=merged, generator=<name>), in load's units
// (generator-cores of the merged line: the generators' sum).
func writeMergedBenchfmt(w io.Writer, m loadresult.Merged) error {
	bw := benchfmt.NewWriter(w)
	if err := writeUnits(bw, loadUnits); err != nil {
		return err
	}
	cfg := configOf([2]string{"generators", fmt.Sprint(len(m.Generators))})
	write := func(gen string, rep load.Report) error {
		name := mergeName(m.Generators[0], gen, "")
		return bw.Write(&benchfmt.Result{Config: cfg, Name: name, Iters: int(max(rep.Requests, 1)), Values: loadValues(rep)})
	}
	if err := write("merged", mergedReport(m)); err != nil {
		return err
	}
	for _, r := range m.Generators {
		if err := write(r.Name, generatorReport(r)); err != nil {
			return err
		}
	}
	return nil
}

// mergeName is the benchmark name of a merged line; rate, when set, is
// the step's /rate= key.
func mergeName(first loadresult.Result, gen, rate string) benchfmt.Name {
	name := fmt.Sprintf("Merge/label=%s/size=%d/generator=%s", nameSegment(first.Label), first.SizeBytes, nameSegment(gen))
	if rate != "" {
		name += "/rate=" + rate
	}
	return benchfmt.Name(name)
}
