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

// CPUBound is the share of its usable CPUs past which a generator counts
// as measuring itself.
const CPUBound = 0.9

// Merged is N generators' results as one.
type Merged struct {
	Generators []Result
	// Start and End are the common window: the latest start and the
	// earliest end (End before Start when the windows do not meet).
	Start, End time.Time
	// Overlap is the common window over the longest generator window.
	Overlap float64
	// Requests and Errors are summed. OfferedRPS and AchievedRPS are the
	// sums of the generators' rates, each its requests over its own
	// window: the server's rate over the common window when the
	// generators ran together and steadily (the overlap warning says
	// when they did not).
	Requests, Errors        int64
	OfferedRPS, AchievedRPS float64
	// Percentiles of the merged histograms.
	Corrected, Uncorrected         load.Latencies
	CorrectedHist, UncorrectedHist *hdrhistogram.Histogram
	Warnings                       []string
}

// Merge merges results. It fails on none.
func Merge(rs []Result) (Merged, error) {
	if len(rs) == 0 {
		return Merged{}, errors.New("no results to merge")
	}
	m := Merged{
		Generators:    rs,
		CorrectedHist: load.NewHistogram(), UncorrectedHist: load.NewHistogram(),
	}
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
		m.Errors += r.Errors
		m.OfferedRPS += r.OfferedRPS
		m.AchievedRPS += r.AchievedRPS
		if d := m.CorrectedHist.Merge(r.corrected) + m.UncorrectedHist.Merge(r.uncorrected); d > 0 {
			m.Warnings = append(m.Warnings, fmt.Sprintf("%s: %d latencies beyond the histogram's 60 s were dropped", r.Name, d))
		}
	}
	if common := m.End.Sub(m.Start); common > 0 && longest > 0 {
		m.Overlap = common.Seconds() / longest.Seconds()
	}
	m.Corrected, m.Uncorrected = load.Percentiles(m.CorrectedHist), load.Percentiles(m.UncorrectedHist)
	m.Warnings = append(m.Warnings, m.warn()...)
	return m, nil
}

// warn lists what makes the merged figures doubtful.
func (m Merged) warn() []string {
	var ws []string
	if len(m.Generators) > 1 && m.Overlap < MinOverlap {
		ws = append(ws, fmt.Sprintf("the windows overlap by %.0f%% of the longest (want %.0f%%): the generators did not run together, so their rates do not add up; start them with -start-at",
			100*m.Overlap, 100*MinOverlap))
	}
	seen := map[string]bool{}
	for _, r := range m.Generators {
		if seen[r.Name] {
			ws = append(ws, fmt.Sprintf("%s: more than one result from this generator name", r.Name))
		}
		seen[r.Name] = true
		if r.Behind {
			ws = append(ws, fmt.Sprintf("%s: fell behind its schedule (%.0f of %.0f req/s)", r.Name, r.AchievedRPS, r.OfferedRPS))
		}
		if r.CPUs > 0 && r.CPUCores >= CPUBound*float64(r.CPUs) {
			ws = append(ws, fmt.Sprintf("%s: kept %.2f of its %d CPUs busy: it measures itself; add generators", r.Name, r.CPUCores, r.CPUs))
		}
		if r.Interrupted {
			ws = append(ws, fmt.Sprintf("%s: interrupted before its window closed", r.Name))
		}
		if first := m.Generators[0]; r.SizeBytes != first.SizeBytes || r.Label != first.Label {
			ws = append(ws, fmt.Sprintf("%s: label %q, %d bytes; %s: label %q, %d bytes: not the same run", r.Name, r.Label, r.SizeBytes, first.Name, first.Label, first.SizeBytes))
		}
	}
	return ws
}

// ErrorRate is errors over errors plus requests.
func (m Merged) ErrorRate() float64 {
	if n := m.Errors + m.Requests; n > 0 {
		return float64(m.Errors) / float64(n)
	}
	return 0
}
