package main

import (
	"fmt"
	"io"
	"runtime"
	"strings"

	"github.com/loopbench/loopbench/bench"
	"golang.org/x/perf/benchfmt"
)

// resultWriter writes benchmark result lines with benchfmt.Writer, full
// precision: the one writer of run's and peers' results. Configuration
// lines are written before it, once, by the command.
type resultWriter struct{ w *benchfmt.Writer }

func newResultWriter(w io.Writer) *resultWriter { return &resultWriter{benchfmt.NewWriter(w)} }

// writeCase writes c's measurement: ns/op, the workload's metrics, B/op
// and allocs/op, under c's benchmark name with GOMAXPROCS as go test
// names it. A workload's own ns/op metric replaces the measured one, and a
// zero one leaves ns/op out, as go test does.
func (rw *resultWriter) writeCase(c bench.Case, res bench.Result) error {
	ns := res.NsPerOp
	var vals []benchfmt.Value
	for _, m := range res.Metrics {
		if m.Unit == "ns/op" {
			ns = m.Value
			continue
		}
		vals = append(vals, benchfmt.Value{Value: m.Value, Unit: m.Unit})
	}
	if ns != 0 {
		vals = append([]benchfmt.Value{{Value: ns, Unit: "ns/op"}}, vals...)
	}
	vals = append(vals, benchfmt.Value{Value: res.BytesPerOp, Unit: "B/op"}, benchfmt.Value{Value: res.AllocsPerOp, Unit: "allocs/op"})
	name := fmt.Sprintf("%s/%s-%d", c.Workload, c.Name(), runtime.GOMAXPROCS(0))
	return rw.write(name, res.N, vals)
}

// write writes one result line.
func (rw *resultWriter) write(name string, iters int, vals []benchfmt.Value) error {
	return rw.w.Write(&benchfmt.Result{Name: benchfmt.Name(name), Iters: iters, Values: vals})
}

// nameSegment makes s usable as a benchmark name segment's value: no
// slash, which separates segments, and no blank, which ends the name.
func nameSegment(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '/' || r == ' ' || r == '\t' {
			return '_'
		}
		return r
	}, s)
}

// byFormat calls the writer of -format: json, benchfmt or the table.
func byFormat(format string, json, bench, table func() error) error {
	switch format {
	case "json":
		return json()
	case "benchfmt":
		return bench()
	}
	return table()
}
