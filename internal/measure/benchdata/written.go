package benchdata

import "golang.org/x/perf/benchfmt"

// Written is v as the program printed it: benchfmt tidies some units
// (ns/op to sec/op, p50-ns to p50-sec) and keeps the original unit and
// value beside the tidied ones only then.
func Written(v benchfmt.Value) (unit string, value float64) {
	if v.OrigUnit != "" {
		return v.OrigUnit, v.OrigValue
	}
	return v.Unit, v.Value
}

// WrittenValue is res's value in unit as the program printed it, and
// whether res has one.
func WrittenValue(res *benchfmt.Result, unit string) (float64, bool) {
	for _, v := range res.Values {
		if u, val := Written(v); u == unit {
			return val, true
		}
	}
	return 0, false
}
