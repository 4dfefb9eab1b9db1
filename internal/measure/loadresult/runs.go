package loadresult

import (
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/montanaflynn/stats"
	"golang.org/x/perf/benchfmt"
)

// WriteTables writes a table per run (WriteText) and, for several, one
// line on their spread (RunsSummary).
func WriteTables(w io.Writer, reps []Result) error {
	for i, rep := range reps {
		if i > 0 {
			fmt.Fprintln(w)
		}
		if err := rep.WriteText(w); err != nil {
			return err
		}
	}
	if len(reps) > 1 {
		fmt.Fprint(w, RunsSummary(reps))
	}
	return nil
}

// RunsSummary describes several runs together: the spread of their
// achieved rates and p99s, with montanaflynn/stats (a handful of values,
// summarized once; percentiles within a run come from the HDR
// histograms). It is a line after a blank one.
func RunsSummary(reps []Result) string {
	var rates, p99s []float64
	for _, r := range reps {
		rates = append(rates, r.Achieved)
		p99s = append(p99s, float64(r.Corrected.P99))
	}
	med, _ := stats.Median(rates)
	lo, _ := stats.Min(rates)
	hi, _ := stats.Max(rates)
	sd, _ := stats.StandardDeviationSample(rates)
	p99, _ := stats.Median(p99s)
	p99lo, _ := stats.Min(p99s)
	p99hi, _ := stats.Max(p99s)
	cv := 0.0
	if med > 0 {
		cv = 100 * sd / med
	}
	return fmt.Sprintf("\nover %d runs: %.0f req/s median (%.0f to %.0f, sd %.1f%%), %s %v median (%v to %v)\n",
		len(reps), med, lo, hi, cv, P99Name(reps[0]), Sig3(time.Duration(p99)), Sig3(time.Duration(p99lo)), Sig3(time.Duration(p99hi)))
}

// P99Name names a run's corrected p99: plain "p99" in closed loop, where
// corrected and uncorrected are one measure.
func P99Name(r Result) string {
	if r.Offered > 0 {
		return "corrected p99"
	}
	return "p99"
}

// RateName names an offered rate: "closed loop" for 0.
func RateName(rate float64) string {
	if rate == 0 {
		return "closed loop"
	}
	return fmt.Sprintf("%.0f req/s offered", rate)
}

// FormatRate prints a rate as a benchmark name key's value: 2000, 2500.5.
func FormatRate(r float64) string { return strconv.FormatFloat(r, 'f', -1, 64) }

// NameSegment is s as a benchmark name key's value: a slash, space or
// tab becomes an underscore.
func NameSegment(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '/' || r == ' ' || r == '\t' {
			return '_'
		}
		return r
	}, s)
}

// ConfigOf is kvs as benchfmt file configuration.
func ConfigOf(kvs ...[2]string) []benchfmt.Config {
	var out []benchfmt.Config
	for _, kv := range kvs {
		out = append(out, benchfmt.Config{Key: kv[0], Value: []byte(kv[1]), File: true})
	}
	return out
}

// BenchName is a run's benchmark name: the label is a name segment, so
// runs against two servers never merge; cpus is the generator's usable
// CPUs, the name's -N.
func BenchName(label string, size, conns int, rate float64, cpus int) benchfmt.Name {
	return benchfmt.Name(fmt.Sprintf("Load/label=%s/size=%d/conns=%d/rate=%s-%d", NameSegment(label), size, conns, FormatRate(rate), cpus))
}

// WriteJSON writes v as indented JSON.
func WriteJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}
