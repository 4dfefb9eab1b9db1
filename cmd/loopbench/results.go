package main

import (
	"io"
	"strings"

	"github.com/loopbench/loopbench/bench"
	"github.com/loopbench/loopbench/internal/harness/runner"
	"golang.org/x/perf/benchfmt"
)

// resultWriter is runner.Writer, the one writer of run's and peers'
// results, under the names peers calls, beside the benchfmt.Writer it
// writes through (peers' sweeps write their own results to it).
type resultWriter struct {
	w  *benchfmt.Writer
	rw *runner.Writer
}

func newResultWriter(w io.Writer) *resultWriter {
	bw := benchfmt.NewWriter(w)
	return &resultWriter{bw, runner.NewWriter(bw)}
}

func (r *resultWriter) writeCase(c bench.Case, res bench.Result) error {
	return r.rw.WriteCase(c, res)
}

func (r *resultWriter) write(name string, iters int, vals []benchfmt.Value) error {
	return r.rw.Write(name, iters, vals)
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
