package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/loopbench/loopbench/internal/harness/load"
	"github.com/loopbench/loopbench/internal/harness/loadresult"
	"golang.org/x/perf/benchfmt"
)

// stepCores is the most CPU any generator kept busy in a step.
func stepCores(m loadresult.Merged) float64 {
	var c float64
	for _, r := range m.Generators {
		c = max(c, r.Cores())
	}
	return c
}

func writeMergedSweepTable(w io.Writer, ms load.MergedSweep) error {
	fmt.Fprintf(w, "%s (%s), %s merged; SLO: corrected p99 within %v, errors within %.3g%%\n",
		loadresult.Plural(len(ms.Generators), "generator"), strings.Join(ms.Generators, ", "), loadresult.Plural(len(ms.Steps), "step"), ms.Criteria.SLO, 100*ms.Criteria.MaxErrors)
	var rows []sweepRow
	for _, s := range ms.Steps {
		m := s.Merged
		rows = append(rows, sweepRow{m.Result, stepCores(m), s.Verdict.String()})
	}
	if err := writeSweepRows(w, "max cores", rows); err != nil {
		return err
	}
	fmt.Fprintln(w, "rates summed over the generators, latencies from their merged histograms (corrected; u.: uncorrected); max cores: the busiest generator's")
	_, err := fmt.Fprintf(w, "merged %v\n", ms.Knee)
	return err
}

type mergedSweepJSON struct {
	Generators []string         `json:"generators"`
	SLONS      int64            `json:"slo_ns"`
	MaxErrors  float64          `json:"max_errors"`
	Knee       kneeJSON         `json:"knee"`
	Steps      []mergedStepJSON `json:"steps"`
}

type mergedStepJSON struct {
	Step    int    `json:"step"`
	Verdict string `json:"verdict"`
	mergedJSON
}

func mergedSweepToJSON(ms load.MergedSweep) mergedSweepJSON {
	out := mergedSweepJSON{Generators: ms.Generators, SLONS: int64(ms.Criteria.SLO), MaxErrors: ms.Criteria.MaxErrors,
		Knee: kneeJSON{ms.Knee.Rate, ms.Knee.LowerBound, ms.Knee.Note}}
	for _, s := range ms.Steps {
		out.Steps = append(out.Steps, mergedStepJSON{s.Index + 1, s.Verdict.String(), mergedToJSON(s.Merged)})
	}
	return out
}

// writeMergedSweepBenchfmt writes a line per merged step (generator=merged
// and a /rate= key, the summed offered rate) and the merged knee.
func writeMergedSweepBenchfmt(w io.Writer, ms load.MergedSweep) error {
	bw := benchfmt.NewWriter(w)
	if err := loadresult.WriteUnits(bw, sweepUnits); err != nil {
		return err
	}
	cfg := configOf([2]string{"generators", strings.Join(ms.Generators, ",")})
	first := ms.Steps[0].Merged.Generators[0]
	for _, s := range ms.Steps {
		rep := s.Merged.Result
		res := &benchfmt.Result{Config: cfg, Name: mergeName(first, "merged", formatRate(rep.Offered)), Iters: int(max(rep.Requests, 1)), Values: rep.Values()}
		if err := bw.Write(res); err != nil {
			return err
		}
	}
	name := fmt.Sprintf("MergeKnee/label=%s/size=%d/generator=merged/slo=%v", nameSegment(first.Label), first.Size, ms.Criteria.SLO)
	return bw.Write(&benchfmt.Result{Config: configOf(append([][2]string{{"generators", strings.Join(ms.Generators, ",")}}, ms.Knee.Config()...)...),
		Name: benchfmt.Name(name), Iters: 1, Values: []benchfmt.Value{{Value: ms.Knee.Rate, Unit: "knee-req/s"}}})
}
