package loadresult

import (
	"fmt"
	"io"
	"math"
	"strings"
	"text/tabwriter"
	"time"
)

// WriteText writes r as `loopbench load` prints a run: its counts and
// rates, its errors, the latency percentiles (µs and ms for people to
// read; the machine-readable outputs are in ns) and the generator's line.
func (r Result) WriteText(w io.Writer) error {
	fmt.Fprintf(w, "%s: %v over %s of %d bytes: %.0f req/s", r.Label, r.Elapsed.Round(time.Millisecond), Plural(r.Conns, "connection"), r.Size, r.Achieved)
	if r.Offered > 0 {
		fmt.Fprintf(w, " (offered %.0f)", r.Offered)
	}
	fmt.Fprintln(w)
	if r.Interrupted {
		fmt.Fprintf(w, "interrupted after %v of %v\n", r.Elapsed.Round(time.Millisecond), r.Duration)
	}
	fmt.Fprintln(w, r.Accounting("the window's"))
	for _, e := range r.ErrorTexts {
		fmt.Fprintf(w, "  %dx %s\n", e.Count, e.Text)
	}
	// In closed loop each request is sent when it is due, so the corrected
	// and uncorrected latencies are one measure: one row, and no pacing.
	rows := []LatencyRow{{"round trip", r.Corrected}}
	if r.Offered > 0 {
		rows = []LatencyRow{{"corrected", r.Corrected}, {"uncorrected", r.Uncorrected}, {"pacing lag", r.PacingLag}}
	}
	if r.ReceiveLag.Max > 0 {
		rows = append(rows, LatencyRow{"receive lag", r.ReceiveLag})
	}
	if err := WriteLatencies(w, "latency", rows...); err != nil {
		return err
	}
	if r.Overflow > 0 {
		fmt.Fprintf(w, "%d latencies beyond the histograms' 60 s were recorded as 60 s\n", r.Overflow)
	}
	return r.writeGeneratorLine(w)
}

// Accounting is the one count of a result's requests, whose is whose
// window they were intended in: "the window's 500000 requests = 499990
// answered + 2 timed out + 1 failed otherwise + 7 unsent, 3 errors
// (0.0006%)". The achieved rate counts the answers that arrived in the
// window instead (Requests), a rate and not a second count.
func (r Result) Accounting(whose string) string {
	s := fmt.Sprintf("%s %s = %d answered + %d timed out + %d failed otherwise + %d unsent, %s",
		whose, Plural(r.Scheduled, "request"), r.Answered, r.TimedOut, r.Errors-r.TimedOut, r.Unsent, Plural(r.Errors, "error"))
	if r.Errors > 0 {
		s += fmt.Sprintf(" (%.3g%%)", 100*r.ErrorRate())
	}
	return s
}

// writeGeneratorLine writes what the generator reports about itself: its CPU,
// per answered request, the spinning in it, and its connections' use.
func (r Result) writeGeneratorLine(w io.Writer) error {
	fmt.Fprintf(w, "generator CPU: %.2f cores over %v, %v per answered request", r.Cores(), r.Wall.Round(time.Millisecond), Sig3(r.CPUPerRequest()))
	if r.Spin > 0 {
		fmt.Fprintf(w, " (spinning left out: %v spent spinning)", Sig3(r.Spin))
	}
	if r.Offered > 0 {
		fmt.Fprintf(w, "; paced by %s", r.PacingMethod)
	}
	_, err := fmt.Fprintf(w, "; connections busy %.2f of %d on average\n", r.Concurrency(), r.Conns)
	return err
}

// LatencyRow is a row of WriteLatencies: a measure's name and its
// percentiles.
type LatencyRow struct {
	Name string
	L    Latencies
}

// WriteLatencies writes percentile rows as a table headed title.
func WriteLatencies(w io.Writer, title string, rows ...LatencyRow) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "%s\t%s\t\n", title, strings.Join(PercentileNames(), "\t"))
	for _, r := range rows {
		fmt.Fprintf(tw, "%s\t", r.Name)
		for _, v := range r.L.Values() {
			fmt.Fprintf(tw, "%v\t", Sig3(v))
		}
		fmt.Fprintln(tw)
	}
	return tw.Flush()
}

// Sig3 rounds d to three significant digits, the histograms' precision.
func Sig3(d time.Duration) time.Duration {
	if d < 1000 {
		return d
	}
	unit := time.Duration(math.Pow10(int(math.Floor(math.Log10(float64(d)))) - 2))
	return d.Round(unit)
}

// Plural is n and noun, the noun with an s unless n is 1: "1 connection",
// "2 connections", "0 CPUs". The outputs of load, merge and their reports
// count with it.
func Plural[N int | int64](n N, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
