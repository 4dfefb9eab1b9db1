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

func writeMerged(w io.Writer, format string, m loadresult.Merged) error {
	switch format {
	case "json":
		return writeJSON(w, mergedToJSON(m))
	case "benchfmt":
		return writeMergedBenchfmt(w, m)
	}
	return writeMergedTable(w, m)
}

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

type mergedJSON struct {
	Generators   int                `json:"generators"`
	Requests     int64              `json:"requests"`
	Scheduled    int64              `json:"scheduled"`
	Answered     int64              `json:"answered"`
	TimedOut     int64              `json:"timed_out"`
	Unsent       int64              `json:"unsent"`
	Errors       int64              `json:"errors"`
	ErrorRate    float64            `json:"error_rate"`
	OfferedRPS   float64            `json:"offered_rps"`
	AchievedRPS  float64            `json:"achieved_rps"`
	CommonStart  *time.Time         `json:"common_window_start,omitempty"` // none when the windows do not overlap
	CommonEnd    *time.Time         `json:"common_window_end,omitempty"`
	Overlap      float64            `json:"overlap"`
	Corrected    load.JSONLatencies `json:"corrected_latency"`
	Uncorrected  load.JSONLatencies `json:"uncorrected_latency"`
	PacingLag    load.JSONLatencies `json:"pacing_lag"`
	Warnings     []string           `json:"warnings"`
	PerGenerator []mergedGenerator  `json:"per_generator"`
}

type mergedGenerator struct {
	Name        string             `json:"name"`
	Requests    int64              `json:"requests"`
	Errors      int64              `json:"errors"`
	OfferedRPS  float64            `json:"offered_rps"`
	AchievedRPS float64            `json:"achieved_rps"`
	WindowStart time.Time          `json:"window_start"`
	WindowEnd   time.Time          `json:"window_end"`
	CPUCores    float64            `json:"generator_cpu_cores"`
	CPUs        int                `json:"generator_cpus"`
	Behind      bool               `json:"behind_schedule"`
	Corrected   load.JSONLatencies `json:"corrected_latency"`
	PacingLag   load.JSONLatencies `json:"pacing_lag"`
}

func mergedToJSON(m loadresult.Merged) mergedJSON {
	out := mergedJSON{
		Generators: len(m.Generators), Requests: m.Requests, Scheduled: m.Scheduled, Answered: m.Answered, TimedOut: m.TimedOut, Unsent: m.Unsent,
		Errors: m.Errors, ErrorRate: m.ErrorRate(), OfferedRPS: m.OfferedRPS, AchievedRPS: m.AchievedRPS, Overlap: m.Overlap,
		Corrected: load.JSONLat(m.Corrected), Uncorrected: load.JSONLat(m.Uncorrected), PacingLag: load.JSONLat(m.PacingLag),
		Warnings: append(append([]string{}, m.Refusals...), m.Warnings...),
	}
	if m.Overlaps() {
		out.CommonStart, out.CommonEnd = &m.Start, &m.End
	}
	for _, r := range m.Generators {
		out.PerGenerator = append(out.PerGenerator, mergedGenerator{
			Name: r.Name, Requests: r.Requests, Errors: r.Errors, OfferedRPS: r.OfferedRPS, AchievedRPS: r.AchievedRPS,
			WindowStart: r.WindowStart, WindowEnd: r.WindowEnd, CPUCores: r.CPUCores, CPUs: r.CPUs, Behind: r.Behind,
			Corrected: load.JSONLat(load.Percentiles(r.Corrected())), PacingLag: load.JSONLat(load.Percentiles(r.PacingLag())),
		})
	}
	return out
}

// mergedReport is a merged run as load.Report, for the benchmark lines.
func mergedReport(m loadresult.Merged) load.Report {
	var cores float64
	for _, r := range m.Generators {
		cores += r.CPUCores
	}
	return load.Report{Offered: m.OfferedRPS, Achieved: m.AchievedRPS, Requests: m.Requests, Errors: m.Errors, TimedOut: m.TimedOut, Unsent: m.Unsent,
		Corrected: m.Corrected, Uncorrected: m.Uncorrected, PacingLag: m.PacingLag, CPU: time.Duration(cores * float64(time.Second)), Wall: time.Second}
}

// generatorReport is one generator's result as load.Report.
func generatorReport(r loadresult.Result) load.Report {
	return load.Report{Offered: r.OfferedRPS, Achieved: r.AchievedRPS, Requests: r.Requests, Errors: r.Errors, TimedOut: r.TimedOut, Unsent: r.Unsent,
		Corrected: load.Percentiles(r.Corrected()), Uncorrected: load.Percentiles(r.Uncorrected()), PacingLag: load.Percentiles(r.PacingLag()),
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
