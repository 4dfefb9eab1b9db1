package load

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/loopbench/loopbench/internal/measure/loadresult"
)

// MergedStep is one step of N generators' sweeps, merged.
type MergedStep struct {
	Index   int
	Merged  loadresult.Merged
	Verdict Verdict
}

// MergedSweep is N generators' sweeps merged step by step, and the knee
// of the merged curve.
type MergedSweep struct {
	Generators []string
	Criteria   Criteria
	Steps      []MergedStep
	Knee       Knee
	// Refusals and Warnings as Merged's, of every step (named).
	Refusals, Warnings []string
}

// IsSweep reports whether rs are sweep steps; mixing steps and single
// runs is an error.
func IsSweep(rs []loadresult.Result) (bool, error) {
	steps := 0
	for _, r := range rs {
		if r.Step != nil {
			steps++
		}
	}
	if steps > 0 && steps < len(rs) {
		return false, fmt.Errorf("%d of the %d results are sweep steps and the others single runs: merge them apart", steps, len(rs))
	}
	return steps > 0, nil
}

// MergeSweeps merges sweeps step by step: step k of every generator
// (they step at the same instants, load -sweep -start-at) into one,
// judged by the sweeps' criteria, the offered and achieved rates summed.
// The merged sweep ends before the first step some generator did not run
// (it stopped earlier) or was interrupted in, with a warning (an error
// when that is the first); a step where any generator was CPU-bound,
// late or connection-bound is judged as in FindKnee.
func MergeSweeps(rs []loadresult.Result) (MergedSweep, error) {
	var ms MergedSweep
	if len(rs) == 0 {
		return ms, errors.New("no results to merge")
	}
	byStep := map[int][]loadresult.Result{}
	for _, r := range rs {
		if r.Step == nil {
			return ms, errors.New("a single run among sweep steps")
		}
		byStep[*r.Step] = append(byStep[*r.Step], r)
		if r.SLO != rs[0].SLO || r.MaxErrors != rs[0].MaxErrors {
			ms.Refusals = append(ms.Refusals, fmt.Sprintf("%s: -slo %v, -max-errors %g%%; %s: -slo %v, -max-errors %g%%: not the same sweep",
				r.Name, r.SLO, 100*r.MaxErrors, rs[0].Name, rs[0].SLO, 100*rs[0].MaxErrors))
			break
		}
	}
	ms.Criteria = Criteria{SLO: rs[0].SLO, MaxErrors: rs[0].MaxErrors}
	ms.Generators = generatorNames(byStep[0])
	for k := 0; ; k++ {
		step, ok := byStep[k]
		if !ok {
			break
		}
		if names := generatorNames(step); !slices.Equal(names, ms.Generators) {
			ms.Warnings = append(ms.Warnings, fmt.Sprintf("step %d was run by %s, step 1 by %s: the merged sweep ends before it",
				k+1, strings.Join(names, ", "), strings.Join(ms.Generators, ", ")))
			break
		}
		if names := interrupted(step); names != nil {
			if k == 0 {
				return ms, fmt.Errorf("step 1 was interrupted in %s: no step to merge", strings.Join(names, ", "))
			}
			ms.Warnings = append(ms.Warnings, fmt.Sprintf("step %d was interrupted in %s: the merged sweep ends before it", k+1, strings.Join(names, ", ")))
			break
		}
		m, err := loadresult.MergeGenerators(step)
		if err != nil {
			return ms, err
		}
		for _, s := range m.Refusals {
			ms.Refusals = append(ms.Refusals, fmt.Sprintf("step %d: %s", k+1, s))
		}
		for _, s := range m.Warnings {
			ms.Warnings = append(ms.Warnings, fmt.Sprintf("step %d: %s", k+1, s))
		}
		ms.Steps = append(ms.Steps, MergedStep{Index: k, Merged: m, Verdict: mergedVerdict(ms.Criteria, m, byStep[0])})
	}
	if len(ms.Steps) == 0 {
		return ms, errors.New("no sweep has a first step")
	}
	outcomes := make([]StepOutcome, len(ms.Steps))
	for i, s := range ms.Steps {
		outcomes[i] = StepOutcome{Offered: s.Merged.Offered, Verdict: s.Verdict}
	}
	ms.Knee = FindKnee(outcomes)
	return ms, nil
}

// mergedVerdict judges a merged step: the server by the generators' sums
// and merged tail, and the generator limits of each generator as its own
// sweep judged them (first holds the generators' first steps, whose p50
// a connection-bound step is held against): late when the latest was,
// CPU-bound or connection-bound when any was.
func mergedVerdict(c Criteria, m loadresult.Merged, first []loadresult.Result) Verdict {
	f := Figures{Offered: m.Offered, Achieved: m.Achieved, P99: m.Corrected.P99, ErrorRate: m.ErrorRate()}
	connBound := false
	for _, r := range m.Generators {
		g := FiguresOf(r, r.CPUs)
		for _, b := range first {
			if b.Name == r.Name && r.Step != nil && *r.Step > 0 {
				g.BaseLatencyP50 = b.Uncorrected.P50
			}
		}
		f.PacingLagP99 = max(f.PacingLagP99, g.PacingLagP99)
		f.CPUBound = f.CPUBound || g.CPUBound
		connBound = connBound || g.ConnBound()
	}
	v := c.Judge(f)
	v.ConnBound = connBound
	return v
}

// interrupted names the generators whose step was interrupted (by a
// loopbench that kept such a step in -out): its figures cover part of a
// window at most, so neither the merged curve nor the knee takes it.
func interrupted(step []loadresult.Result) []string {
	var out []string
	for _, r := range step {
		if r.Interrupted {
			out = append(out, r.Name)
		}
	}
	slices.Sort(out)
	return out
}

func generatorNames(rs []loadresult.Result) []string {
	var out []string
	for _, r := range rs {
		out = append(out, r.Name)
	}
	slices.Sort(out)
	return out
}
