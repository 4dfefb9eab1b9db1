package loadresult

import (
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"
)

// Merge merges parts that ran at the same time into one result: the
// loops of one generator, or N generators against one server. Counts,
// errors by text, connections, CPUs, loops, CPU and Spin are summed; the
// offered and achieved rates are summed, each part's its requests over
// its own window (the server's rate when the parts ran together and
// steadily); the histograms are merged and the percentiles read from
// them. Wall is the longest part's wall time, not a sum: the parts ran
// side by side, so CPU/Wall is the cores they kept busy together. The
// window runs from the earliest start to the latest end, and Elapsed is
// that span; Duration is the longest asked for. Behind and Interrupted
// are set when they are in any part. The series are merged interval by
// interval when they line up (seriesOf), else left out. The identity (Name, Label, Addr,
// Size, PacingMethod, Step and its criteria) is the first part's.
func Merge(parts ...Result) Result {
	if len(parts) == 0 {
		return Result{}
	}
	m := parts[0]
	m.Conns, m.CPUs, m.Loops, m.ErrorTexts = 0, 0, 0, nil
	m.Requests, m.Scheduled, m.Answered, m.TimedOut, m.Unsent, m.Errors, m.Gone, m.Expired, m.Mismatched, m.Overflow = 0, 0, 0, 0, 0, 0, 0, 0, 0, 0
	m.Offered, m.Achieved, m.CPU, m.Spin, m.Wall, m.Duration = 0, 0, 0, 0, 0, 0
	hists := []**hdrhistogram.Histogram{&m.CorrectedHist, &m.UncorrectedHist, &m.PacingLagHist, &m.ReceiveLagHist}
	for _, h := range hists {
		*h = nil
	}
	for i, p := range parts {
		m.Conns += p.Conns
		m.CPUs += p.CPUs
		m.Loops += p.Loops
		m.Requests += p.Requests
		m.Scheduled += p.Scheduled
		m.Answered += p.Answered
		m.TimedOut += p.TimedOut
		m.Unsent += p.Unsent
		m.Errors += p.Errors
		m.Gone += p.Gone
		m.Expired += p.Expired
		m.Mismatched += p.Mismatched
		m.Overflow += p.Overflow
		m.ErrorTexts = addErrors(m.ErrorTexts, p.ErrorTexts)
		m.Offered += p.Offered
		m.Achieved += p.Achieved
		m.CPU += p.CPU
		m.Spin += p.Spin
		m.Wall = max(m.Wall, p.Wall)
		m.Duration = max(m.Duration, p.Duration)
		m.Behind = m.Behind || p.Behind
		m.Interrupted = m.Interrupted || p.Interrupted
		if i > 0 && p.WindowStart.Before(m.WindowStart) {
			m.WindowStart = p.WindowStart
		}
		if p.WindowEnd.After(m.WindowEnd) {
			m.WindowEnd = p.WindowEnd
		}
		for j, h := range []*hdrhistogram.Histogram{p.CorrectedHist, p.UncorrectedHist, p.PacingLagHist, p.ReceiveLagHist} {
			if h == nil {
				continue
			}
			if *hists[j] == nil {
				*hists[j] = NewHistogram()
			}
			(*hists[j]).Merge(h)
		}
	}
	m.Elapsed = m.WindowEnd.Sub(m.WindowStart)
	m.Series, _ = seriesOf(parts)
	m.Summarize()
	return m
}

// addErrors adds the groups of b to a, most frequent first (in a tie,
// the one seen first).
func addErrors(a, b []ErrorCount) []ErrorCount {
	for _, e := range b {
		if i := slices.IndexFunc(a, func(x ErrorCount) bool { return x.Text == e.Text }); i >= 0 {
			a[i].Count += e.Count
		} else {
			a = append(a, e)
		}
	}
	slices.SortStableFunc(a, func(x, y ErrorCount) int { return int(y.Count - x.Count) })
	return a
}

// MinOverlap is the share of the longest window the common window must
// cover for the generators to count as having run together.
const MinOverlap = 0.9

// Merged is N generators' results as one: their Merge, and what makes it
// doubtful or meaningless.
type Merged struct {
	Result
	Generators []Result
	// Start and End are the common window: the latest start and the
	// earliest end (End not after Start when the windows do not meet).
	Start, End time.Time
	// Overlap is the common window over the longest generator window.
	Overlap float64
	// Refusals are what makes the sums meaningless (different runs, the
	// same result twice, windows that do not meet): merge refuses them
	// unless forced. Warnings make the figures doubtful.
	Refusals, Warnings []string
	// SeriesLeftOut says in one line why the merged result has no
	// series; "" when it has one, or when no generator has one.
	SeriesLeftOut string
}

// Overlaps reports whether the generators' windows have a common part.
func (m Merged) Overlaps() bool { return m.End.After(m.Start) }

// MergeGenerators merges N generators' results. It fails on none.
func MergeGenerators(rs []Result) (Merged, error) {
	if len(rs) == 0 {
		return Merged{}, errors.New("no results to merge")
	}
	m := Merged{Result: Merge(rs...), Generators: rs}
	var longest time.Duration
	for i, r := range rs {
		if i == 0 || r.WindowStart.After(m.Start) {
			m.Start = r.WindowStart
		}
		if i == 0 || r.WindowEnd.Before(m.End) {
			m.End = r.WindowEnd
		}
		longest = max(longest, r.WindowEnd.Sub(r.WindowStart))
	}
	if common := m.End.Sub(m.Start); common > 0 && longest > 0 {
		m.Overlap = common.Seconds() / longest.Seconds()
	}
	m.Refusals = m.refuse()
	m.Warnings = m.warn()
	if _, why := seriesOf(rs); why != "" && slices.ContainsFunc(rs, func(r Result) bool { return r.Series != nil }) {
		m.SeriesLeftOut = "the per-interval series is left out: " + why
	}
	return m, nil
}

// refuse lists what makes summing the results meaningless.
func (m Merged) refuse() []string {
	var out []string
	first := m.Generators[0]
	type key struct {
		name  string
		start time.Time
		step  int
	}
	seen := map[key]bool{}
	for _, r := range m.Generators {
		if r.Size != first.Size || r.Label != first.Label {
			out = append(out, fmt.Sprintf("%s: label %q, %d bytes; %s: label %q, %d bytes: not the same run", r.Name, r.Label, r.Size, first.Name, first.Label, first.Size))
		}
		k := key{r.Name, r.WindowStart, -1}
		if r.Step != nil {
			k.step = *r.Step
		}
		if seen[k] {
			out = append(out, fmt.Sprintf("%s: its result of the window from %s is there twice (the same file given twice?)", r.Name, r.WindowStart.Format("15:04:05.000")))
		}
		seen[k] = true
	}
	if len(m.Generators) > 1 && !m.Overlaps() {
		out = append(out, fmt.Sprintf("the windows do not overlap (the latest starts at %s, the earliest ends at %s): the generators did not run together, so their rates do not add up; start them with -start-at",
			m.Start.Format("15:04:05.000"), m.End.Format("15:04:05.000")))
	}
	return out
}

// warn lists what makes the merged figures doubtful.
func (m Merged) warn() []string {
	var ws []string
	if len(m.Generators) > 1 && m.Overlaps() && m.Overlap < MinOverlap {
		ws = append(ws, fmt.Sprintf("the windows overlap by %.0f%% of the longest (want %.0f%%): the generators did not run together, so their rates do not add up; start them with -start-at",
			100*m.Overlap, 100*MinOverlap))
	}
	names := map[string]int{}
	for _, r := range m.Generators {
		if names[r.Name]++; names[r.Name] == 2 {
			ws = append(ws, fmt.Sprintf("%s: more than one result from this generator name", r.Name))
		}
		if r.Behind {
			ws = append(ws, fmt.Sprintf("%s: fell behind its schedule (%.0f of %.0f req/s)", r.Name, r.Achieved, r.Offered))
		}
		if r.CPUBound() {
			ws = append(ws, fmt.Sprintf("%s: %s: it measures itself; add generators", r.Name, r.CPUBusy()))
		}
		if r.Interrupted {
			ws = append(ws, fmt.Sprintf("%s: interrupted before its window closed", r.Name))
		}
		if r.Overflow > 0 {
			ws = append(ws, fmt.Sprintf("%s: %d latencies beyond the histograms' 60 s were recorded as 60 s", r.Name, r.Overflow))
		}
	}
	return ws
}
