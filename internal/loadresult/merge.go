package loadresult

import (
	"errors"
	"fmt"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"
	"github.com/loopbench/loopbench/internal/load"
)

// MinOverlap is the share of the longest window the common window must
// cover for the generators to count as having run together.
const MinOverlap = 0.9

// Merged is N generators' results as one.
type Merged struct {
	Generators []Result
	// Start and End are the common window: the latest start and the
	// earliest end (End not after Start when the windows do not meet).
	Start, End time.Time
	// Overlap is the common window over the longest generator window.
	Overlap float64
	// The counts are summed. OfferedRPS and AchievedRPS are the sums of
	// the generators' rates, each its requests over its own window: the
	// server's rate over the common window when the generators ran
	// together and steadily.
	Requests, Scheduled, Answered, TimedOut, Unsent, Errors, Overflow int64
	OfferedRPS, AchievedRPS                                           float64
	// Percentiles of the merged histograms.
	Corrected, Uncorrected, PacingLag             load.Latencies
	CorrectedHist, UncorrectedHist, PacingLagHist *hdrhistogram.Histogram
	// Refusals are what makes the sums meaningless (different runs, the
	// same result twice, windows that do not meet): merge refuses them
	// unless forced. Warnings make the figures doubtful.
	Refusals, Warnings []string
}

// Overlaps reports whether the generators' windows have a common part.
func (m Merged) Overlaps() bool { return m.End.After(m.Start) }

// Merge merges results. It fails on none.
func Merge(rs []Result) (Merged, error) {
	if len(rs) == 0 {
		return Merged{}, errors.New("no results to merge")
	}
	m := Merged{Generators: rs, CorrectedHist: load.NewHistogram(), UncorrectedHist: load.NewHistogram(), PacingLagHist: load.NewHistogram()}
	var longest time.Duration
	for i, r := range rs {
		if i == 0 || r.WindowStart.After(m.Start) {
			m.Start = r.WindowStart
		}
		if i == 0 || r.WindowEnd.Before(m.End) {
			m.End = r.WindowEnd
		}
		longest = max(longest, r.WindowEnd.Sub(r.WindowStart))
		m.Requests += r.Requests
		m.Scheduled += r.Scheduled
		m.Answered += r.Answered
		m.TimedOut += r.TimedOut
		m.Unsent += r.Unsent
		m.Errors += r.Errors
		m.Overflow += r.Overflow
		m.OfferedRPS += r.OfferedRPS
		m.AchievedRPS += r.AchievedRPS
		m.CorrectedHist.Merge(r.corrected)
		m.UncorrectedHist.Merge(r.uncorrected)
		m.PacingLagHist.Merge(r.lag)
	}
	if common := m.End.Sub(m.Start); common > 0 && longest > 0 {
		m.Overlap = common.Seconds() / longest.Seconds()
	}
	m.Corrected, m.Uncorrected, m.PacingLag = load.Percentiles(m.CorrectedHist), load.Percentiles(m.UncorrectedHist), load.Percentiles(m.PacingLagHist)
	m.Refusals = m.refuse()
	m.Warnings = m.warn()
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
		if r.SizeBytes != first.SizeBytes || r.Label != first.Label {
			out = append(out, fmt.Sprintf("%s: label %q, %d bytes; %s: label %q, %d bytes: not the same run", r.Name, r.Label, r.SizeBytes, first.Name, first.Label, first.SizeBytes))
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
			ws = append(ws, fmt.Sprintf("%s: fell behind its schedule (%.0f of %.0f req/s)", r.Name, r.AchievedRPS, r.OfferedRPS))
		}
		if r.CPUBound() {
			ws = append(ws, fmt.Sprintf("%s: kept %.2f of its %d CPUs busy: it measures itself; add generators", r.Name, r.CPUCores, r.CPUs))
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

// ErrorRate is the share of the window's requests that failed.
func (m Merged) ErrorRate() float64 {
	if m.Scheduled > 0 {
		return float64(m.Errors) / float64(m.Scheduled)
	}
	return 0
}
