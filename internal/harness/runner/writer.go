package runner

import (
	"fmt"
	"runtime"

	"github.com/loopbench/loopbench/bench"
	"golang.org/x/perf/benchfmt"
)

// Writer writes benchmark result lines with benchfmt.Writer, at full
// precision: the one writer of run's and peers' results. Configuration
// lines are written before it, once, by its caller.
type Writer struct{ w *benchfmt.Writer }

// NewWriter returns a Writer of result lines through w, which its caller
// may share to write other results between them.
func NewWriter(w *benchfmt.Writer) *Writer { return &Writer{w} }

// WriteCase writes c's measurement: ns/op, the workload's metrics, B/op
// and allocs/op, under c's benchmark name with GOMAXPROCS as go test
// names it. A workload's own ns/op metric replaces the measured one, and a
// zero one leaves ns/op out, as go test does.
func (rw *Writer) WriteCase(c bench.Case, res bench.Result) error {
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
	return rw.Write(name, res.N, vals)
}

// Write writes one result line: name (without the Benchmark prefix, which
// benchfmt adds), its iterations and its values.
func (rw *Writer) Write(name string, iters int, vals []benchfmt.Value) error {
	return rw.w.Write(&benchfmt.Result{Name: benchfmt.Name(name), Iters: iters, Values: vals})
}
