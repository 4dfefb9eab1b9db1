package report

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/loopbench/loopbench/internal/harness/load"
	"github.com/loopbench/loopbench/internal/measure/benchdata"
	"github.com/loopbench/loopbench/internal/measure/loadresult"
	"github.com/montanaflynn/stats"
	"golang.org/x/perf/benchfmt"
)

// sweepGroup collects one sweep's benchmark lines: values by rate and
// unit, and its knee line.
type sweepGroup struct {
	key, label string
	values     map[float64]map[string][]float64
	knee       load.Knee
	slo        time.Duration
}

// ReadSweeps finds the load sweeps in benchmark files: the lines of
// load -sweep (BenchmarkLoad/…/rate=R) and of merge's merged sweeps
// (BenchmarkMerge/…/generator=merged/rate=R), grouped by their other name
// keys, with their knee lines, whose fields are read from their own keys
// (load.KneeOf), never from the knee's text. A group of fewer than two
// rates is no sweep. The SLO is the knees', when they agree.
func ReadSweeps(files []string) ([]SweepSeries, time.Duration, error) {
	groups := map[string]*sweepGroup{}
	var order []string
	for _, path := range files {
		s, err := benchdata.ReadFile(path, nil)
		if err != nil && !errors.Is(err, benchdata.ErrNoResults) {
			return nil, 0, err
		}
		for _, res := range s.Raw {
			if g := sweepLine(res, groups, &order); g != nil {
				g.add(res)
			}
		}
	}
	var out []SweepSeries
	var slos []time.Duration
	for _, k := range order {
		if g := groups[k]; len(g.values) >= 2 {
			out = append(out, g.series())
			slos = append(slos, g.slo)
		}
	}
	uniqueNames(out, order, groups)
	var slo time.Duration
	if len(slos) > 0 && !slices.ContainsFunc(slos, func(s time.Duration) bool { return s != slos[0] }) {
		slo = slos[0]
	}
	return out, slo, nil
}

// sweepLine returns the group of a sweep's line, or nil for any other.
func sweepLine(res *benchfmt.Result, groups map[string]*sweepGroup, order *[]string) *sweepGroup {
	base, parts := res.Name.Parts()
	var key []string
	label := ""
	for _, p := range parts {
		k, v, _ := strings.Cut(strings.TrimPrefix(string(p), "/"), "=")
		switch {
		case strings.HasPrefix(string(p), "-"), k == "rate", k == "slo":
			continue
		case k == "label":
			label = v
		}
		key = append(key, string(p))
	}
	kind := strings.TrimSuffix(string(base), "Knee")
	if kind != "Load" && kind != "Merge" || kind == "Merge" && !slices.Contains(key, "/generator=merged") {
		return nil
	}
	k := kind + strings.Join(key, "")
	g := groups[k]
	if g == nil {
		g = &sweepGroup{key: strings.Join(key, ""), label: label, values: map[float64]map[string][]float64{}, knee: load.Knee{Step: -1}}
		groups[k] = g
		*order = append(*order, k)
	}
	return g
}

func (g *sweepGroup) add(res *benchfmt.Result) {
	if rate := nameValue(res.Name, "rate"); rate != "" {
		r, err := strconv.ParseFloat(rate, 64)
		if err != nil {
			return
		}
		if g.values[r] == nil {
			g.values[r] = map[string][]float64{}
		}
		for _, v := range res.Values {
			unit, val := benchdata.Written(v) // p50-ns, not benchfmt's tidied p50-sec
			g.values[r][unit] = append(g.values[r][unit], val)
		}
		return
	}
	if v, ok := res.Value("knee-req/s"); ok {
		g.knee = load.KneeOf(v, res.GetConfig)
		g.slo, _ = time.ParseDuration(nameValue(res.Name, "slo"))
	}
}

func nameValue(n benchfmt.Name, key string) string {
	_, parts := n.Parts()
	for _, p := range parts {
		if k, v, ok := strings.Cut(strings.TrimPrefix(string(p), "/"), "="); ok && k == key {
			return v
		}
	}
	return ""
}

// series is the group's sweep: per rate the median of each percentile.
func (g *sweepGroup) series() SweepSeries {
	k := g.knee
	s := SweepSeries{Name: g.label, Knee: k.Rate, LowerBound: k.LowerBound, KneeNote: k.Note, Ceiling: k.Ceiling, LeftOut: k.LeftOut}
	rates := make([]float64, 0, len(g.values))
	for r := range g.values {
		rates = append(rates, r)
	}
	slices.Sort(rates)
	for _, r := range rates {
		pt := SweepPoint{Offered: r}
		for i, p := range loadresult.Percentiles {
			if vs := g.values[r][p.Name+"-ns"]; len(vs) > 0 {
				m, _ := stats.Median(vs)
				pt.Latency.Set(i, time.Duration(m))
			}
		}
		s.Points = append(s.Points, pt)
	}
	return s
}

// uniqueNames names each series by its label, or by all its keys where
// labels repeat.
func uniqueNames(series []SweepSeries, order []string, groups map[string]*sweepGroup) {
	count := map[string]int{}
	for _, s := range series {
		count[s.Name]++
	}
	i := 0
	for _, k := range order {
		if g := groups[k]; len(g.values) >= 2 {
			if count[series[i].Name] > 1 || series[i].Name == "" {
				series[i].Name = strings.TrimPrefix(g.key, "/")
			}
			i++
		}
	}
}

// WriteSweepReport draws the sweeps in files, if any, into dir: each
// sweep at every percentile (sweep-<n>.svg), all of them at pct
// (sweeps.svg), and their knees (sweeps.md, also printed on stdout);
// stderr names the figure.
func WriteSweepReport(stdout, stderr io.Writer, files []string, dir, pct string) error {
	series, slo, err := ReadSweeps(files)
	if err != nil || len(series) == 0 {
		return err
	}
	for i, s := range series {
		svg, err := SweepFigure(s.Name, s, slo)
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("sweep-%d.svg", i+1)), svg, 0o644); err != nil {
			return err
		}
	}
	svg, err := SweepCompare(fmt.Sprintf("%d sweeps at the corrected %s", len(series), pct), series, PercentileIndex(pct), slo)
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "sweeps.svg"), svg, 0o644); err != nil {
		return err
	}
	table := KneeTable(series, slo)
	if err := os.WriteFile(filepath.Join(dir, "sweeps.md"), []byte(table), 0o644); err != nil {
		return err
	}
	fmt.Fprint(stdout, "\n"+table)
	fmt.Fprintf(stderr, "report: %s\n", filepath.Join(dir, "sweeps.svg"))
	return nil
}

// SweepSeriesOf is a sweep as the report's plots draw it, named name.
func SweepSeriesOf(name string, steps []load.Step, k load.Knee) SweepSeries {
	s := SweepSeries{Name: name, Knee: k.Rate, LowerBound: k.LowerBound, KneeNote: k.Note, Ceiling: k.Ceiling, LeftOut: k.LeftOut}
	for _, st := range steps {
		s.Points = append(s.Points, SweepPoint{Offered: st.Result.Offered, Latency: st.Result.Corrected})
	}
	return s
}
