package load

import (
	"fmt"
	"io"
	"strings"

	"github.com/loopbench/loopbench/internal/measure/loadresult"
	"golang.org/x/perf/benchfmt"
)

// WriteMergedSweep writes merged sweeps in format ("table", "benchfmt"
// or "json"): a row per merged step and the merged knee, a JSON
// document, or a benchmark line per step and the knee's.
func WriteMergedSweep(w io.Writer, format string, ms MergedSweep) error {
	switch format {
	case "json":
		return loadresult.WriteJSON(w, ms.json())
	case "benchfmt":
		return ms.writeBenchfmt(w)
	}
	return ms.writeTable(w)
}

// stepCores is the most CPU any generator kept busy in a step.
func stepCores(m loadresult.Merged) float64 {
	var c float64
	for _, r := range m.Generators {
		c = max(c, r.Cores())
	}
	return c
}

func (ms MergedSweep) writeTable(w io.Writer) error {
	fmt.Fprintf(w, "%s (%s), %s merged; SLO: corrected p99 within %v, errors within %.3g%%\n",
		loadresult.Plural(len(ms.Generators), "generator"), strings.Join(ms.Generators, ", "), loadresult.Plural(len(ms.Steps), "step"), ms.Criteria.SLO, 100*ms.Criteria.MaxErrors)
	var rows []SweepRow
	for _, s := range ms.Steps {
		m := s.Merged
		rows = append(rows, SweepRow{m.Result, stepCores(m), s.Verdict.String()})
	}
	if err := WriteSweepRows(w, "max cores", rows); err != nil {
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
	loadresult.MergedJSON
}

func (ms MergedSweep) json() mergedSweepJSON {
	out := mergedSweepJSON{Generators: ms.Generators, SLONS: int64(ms.Criteria.SLO), MaxErrors: ms.Criteria.MaxErrors, Knee: ms.Knee.json()}
	for _, s := range ms.Steps {
		out.Steps = append(out.Steps, mergedStepJSON{s.Index + 1, s.Verdict.String(), s.Merged.MergeJSON()})
	}
	return out
}

// writeBenchfmt writes a line per merged step (generator=merged and a
// /rate= key, the summed offered rate) and the merged knee.
func (ms MergedSweep) writeBenchfmt(w io.Writer) error {
	bw := benchfmt.NewWriter(w)
	if err := loadresult.WriteUnits(bw, SweepUnits); err != nil {
		return err
	}
	gens := [2]string{"generators", strings.Join(ms.Generators, ",")}
	cfg := loadresult.ConfigOf(gens)
	first := ms.Steps[0].Merged.Generators[0]
	for _, s := range ms.Steps {
		rep := s.Merged.Result
		res := &benchfmt.Result{Config: cfg, Name: loadresult.MergeName(first, "merged", loadresult.FormatRate(rep.Offered)), Iters: int(max(rep.Requests, 1)), Values: rep.Values()}
		if err := bw.Write(res); err != nil {
			return err
		}
	}
	name := fmt.Sprintf("MergeKnee/label=%s/size=%d/generator=merged/slo=%v", loadresult.NameSegment(first.Label), first.Size, ms.Criteria.SLO)
	return bw.Write(&benchfmt.Result{Config: loadresult.ConfigOf(append([][2]string{gens}, ms.Knee.Config()...)...),
		Name: benchfmt.Name(name), Iters: 1, Values: []benchfmt.Value{{Value: ms.Knee.Rate, Unit: "knee-req/s"}}})
}

// Results are the merged steps as results, each marked as its step
// (loadresult.Result.AsStep) with the sweeps' criteria.
func (ms MergedSweep) Results() []loadresult.Merged {
	var merged []loadresult.Merged
	for _, st := range ms.Steps {
		m := st.Merged
		m.Result = m.Result.AsStep(st.Index, ms.Criteria.SLO, ms.Criteria.MaxErrors)
		merged = append(merged, m)
	}
	return merged
}
