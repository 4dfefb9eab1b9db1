package loadresult

import "golang.org/x/perf/benchfmt"

// Unit is a unit of a result's benchmark values and the direction
// benchstat reads for it ("higher" or "lower" is better).
type Unit struct{ Name, Better string }

// Units are the units of Values: the achieved rate, every percentile of
// the corrected latency (Name-ns) and of the uncorrected
// (Name-uncorrected-ns), the pacing lag's p50 and p99, the failures and
// the generator's cores.
var Units = func() []Unit {
	out := []Unit{{"req/s", "higher"}}
	for _, suffix := range []string{"-ns", "-uncorrected-ns"} {
		for _, p := range Percentiles {
			out = append(out, Unit{p.Name + suffix, "lower"})
		}
	}
	return append(out, Unit{"pacing-lag-p50-ns", "lower"}, Unit{"pacing-lag-p99-ns", "lower"},
		Unit{"errors", "lower"}, Unit{"timed-out", "lower"}, Unit{"unsent", "lower"}, Unit{"generator-cores", "lower"})
}()

// GeneratorUnits are the units GeneratorValues adds to Units: what a
// generator reports about itself.
var GeneratorUnits = []Unit{{"receive-lag-p50-ns", "lower"}, {"receive-lag-p99-ns", "lower"}, {"generator-cpu-ns/req", "lower"}}

// Values are r's benchmark values, in Units' order.
func (r Result) Values() []benchfmt.Value {
	vals := []float64{r.Achieved}
	for _, l := range []Latencies{r.Corrected, r.Uncorrected} {
		for _, v := range l.Values() {
			vals = append(vals, float64(v))
		}
	}
	vals = append(vals, float64(r.PacingLag.P50), float64(r.PacingLag.P99),
		float64(r.Errors), float64(r.TimedOut), float64(r.Unsent), r.Cores())
	return values(vals, Units)
}

// GeneratorValues are Values and then r's values in GeneratorUnits'
// order.
func (r Result) GeneratorValues() []benchfmt.Value {
	own := []float64{float64(r.ReceiveLag.P50), float64(r.ReceiveLag.P99), float64(r.CPUPerRequest())}
	return append(r.Values(), values(own, GeneratorUnits)...)
}

func values(vals []float64, units []Unit) []benchfmt.Value {
	out := make([]benchfmt.Value, len(vals))
	for i, v := range vals {
		out[i] = benchfmt.Value{Value: v, Unit: units[i].Name}
	}
	return out
}

// WriteUnits writes the "better" metadata of units, which benchstat
// reads for the direction of a change.
func WriteUnits(bw *benchfmt.Writer, units []Unit) error {
	for _, u := range units {
		if err := bw.Write(&benchfmt.UnitMetadata{UnitMetadataKey: benchfmt.UnitMetadataKey{Unit: u.Name, Key: "better"}, OrigUnit: u.Name, Value: u.Better}); err != nil {
			return err
		}
	}
	return nil
}
