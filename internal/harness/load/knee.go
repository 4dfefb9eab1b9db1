package load

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Criteria judge a sweep's steps.
type Criteria struct {
	SLO       time.Duration // the corrected p99 a step must stay within
	MaxErrors float64       // the error rate above which the sweep stops
}

// MinAchieved is the share of the offered rate a run or a sweep step
// must achieve; below it, it fell behind (loadresult.Result.Behind, Verdict.Behind).
const MinAchieved = 0.99

// ConnBoundShare is the share of its connections a run must have kept
// busy on average (loadresult.Result.Concurrency) to count as connection-bound.
const ConnBoundShare = 0.9

// LateLag is the generator's pacing lag p99 past which it counts as
// late: a tenth of the SLO, which its lateness would otherwise eat into.
func (c Criteria) LateLag() time.Duration { return c.SLO / 10 }

// Figures are what judging a step looks at.
type Figures struct {
	Offered, Achieved float64
	P99               time.Duration // corrected
	ErrorRate         float64
	PacingLagP99      time.Duration
	CPUBound          bool // the generator kept the CPUs its loops can use busy (loadresult.Result.CPUBound)
	// Concurrency is the connections kept busy on average
	// (loadresult.Result.Concurrency), of Conns.
	Concurrency float64
	Conns       int
	// LatencyP50 is the step's uncorrected p50, BaseLatencyP50 the first
	// step's (0 for a run on its own): a server that answers as fast as
	// at the first step is not queueing the requests.
	LatencyP50, BaseLatencyP50 time.Duration
}

// ConnBound reports whether the connections, not the server, limited the
// rate: it fell behind with every connection busy (ConnBoundShare),
// while the server answered within twice the first step's p50 (a run on
// its own: whatever it answered in). More connections would have sent
// more.
func (f Figures) ConnBound() bool {
	if f.Conns <= 0 || f.Achieved >= MinAchieved*f.Offered || f.Concurrency < ConnBoundShare*float64(f.Conns) {
		return false
	}
	return f.BaseLatencyP50 <= 0 || f.LatencyP50 <= 2*f.BaseLatencyP50
}

// Verdict is a step's outcome under the criteria.
type Verdict struct {
	Behind    bool // achieved below MinAchieved of offered: the server fell behind
	OverSLO   bool // corrected p99 above the SLO
	Errored   bool // error rate above MaxErrors
	CPUBound  bool // the generator kept the CPUs its loops can use busy
	Late      bool // the generator's pacing lag p99 passed LateLag
	ConnBound bool // every connection was busy: more would have sent more (Figures.ConnBound)
}

// Judge judges one step.
func (c Criteria) Judge(f Figures) Verdict {
	return Verdict{
		Behind:    f.Achieved < MinAchieved*f.Offered,
		OverSLO:   f.P99 > c.SLO,
		Errored:   f.ErrorRate > c.MaxErrors,
		CPUBound:  f.CPUBound,
		Late:      f.PacingLagP99 > c.LateLag(),
		ConnBound: f.ConnBound(),
	}
}

// Met reports whether the server met the step: it kept up, within the
// SLO and the error bound.
func (v Verdict) Met() bool { return !v.Behind && !v.OverSLO && !v.Errored }

// Failed reports whether the server fell behind: the stop rule counts
// these.
func (v Verdict) Failed() bool { return v.Behind || v.OverSLO }

// GeneratorLimited reports whether the step's figures describe the
// generator as much as the server.
func (v Verdict) GeneratorLimited() bool { return v.CPUBound || v.Late || v.ConnBound }

// String names what went wrong, or "met".
func (v Verdict) String() string {
	var out []string
	for _, w := range []struct {
		on   bool
		text string
	}{{v.Behind, "behind"}, {v.OverSLO, "over SLO"}, {v.Errored, "errors"}, {v.CPUBound, "generator CPU-bound"}, {v.Late, "generator late"}, {v.ConnBound, "generator connection-bound"}} {
		if w.on {
			out = append(out, w.text)
		}
	}
	if len(out) == 0 {
		return "met"
	}
	return strings.Join(out, ", ")
}

// Knee is the highest offered rate a sweep's server met.
type Knee struct {
	Rate float64 // 0 when no step can be claimed
	Step int     // its index; -1 when none
	// LowerBound is set when the server may sustain more: every step up
	// to the last was met, or the generator limited the sweep.
	LowerBound bool
	Note       string // why there is no knee, or why it is a lower bound
	// Ceiling is the offered rate of the first step where the generator
	// was CPU-bound (0 when none was): no step from it on is judged.
	Ceiling float64
	// LeftOut counts the steps below the ceiling that the generator was
	// late in or connection-bound at: neither met nor failed.
	LeftOut int
}

// StepOutcome is one step as the knee finder sees it.
type StepOutcome struct {
	Offered float64
	Verdict Verdict
}

// FindKnee returns the highest offered rate among the steps the server
// met and the generator did not limit, below the first step where the
// generator was CPU-bound: its ceiling, past which the figures describe
// the generator as much as the server. A step it was late in or
// connection-bound at is left out, neither met nor failed: the steps
// after it still count. The knee is a lower bound when such a step, or
// the ceiling, comes before the server's next failure.
func FindKnee(steps []StepOutcome) Knee {
	k := Knee{Step: -1}
	ceiling := len(steps)
	for i, s := range steps {
		if s.Verdict.CPUBound {
			ceiling, k.Ceiling = i, s.Offered
			break
		}
	}
	judged := func(i int) bool { return i < ceiling && !steps[i].Verdict.GeneratorLimited() }
	first := -1 // the first step judged
	for i, s := range steps {
		if !judged(i) {
			if i < ceiling {
				k.LeftOut++
			}
			continue
		}
		if first < 0 {
			first = i
		}
		if s.Verdict.Met() && s.Offered > k.Rate {
			k.Rate, k.Step = s.Offered, i
		}
	}
	next, limited := -1, -1 // past the knee: the server's first failure, the generator's first limit
	for i := k.Step + 1; k.Step >= 0 && i < len(steps); i++ {
		if !judged(i) {
			limited = i
			break
		}
		if !steps[i].Verdict.Met() {
			next = i
			break
		}
	}
	switch {
	case len(steps) == 0:
		k.Note = "no step was measured"
	case first < 0:
		k.Note = fmt.Sprintf("the generator was %s from the first step on: no knee can be claimed", generatorState(steps[0].Verdict))
	case k.Step < 0:
		k.Note = fmt.Sprintf("no step met the SLO: the knee is below %.0f req/s", steps[first].Offered)
	case limited >= 0:
		k.LowerBound = true
		k.Note = fmt.Sprintf("the generator was %s at %.0f req/s: the server's knee may be higher", generatorState(steps[limited].Verdict), steps[limited].Offered)
	case next < 0:
		k.LowerBound = true
		k.Note = fmt.Sprintf("every step up to the last was met: the knee is above %.0f req/s", k.Rate)
	}
	return k
}

func generatorState(v Verdict) string {
	var out []string
	for _, w := range []struct {
		on   bool
		text string
	}{{v.CPUBound, "CPU-bound"}, {v.Late, "late"}, {v.ConnBound, "connection-bound"}} {
		if w.on {
			out = append(out, w.text)
		}
	}
	return strings.Join(out, " and ")
}

// The benchfmt configuration keys of a sweep's knee line: beside the
// "knee" line's text (String), for people, each of the knee's fields on
// its own, so that a reader of the file takes them typed (KneeOf) and
// never from the text.
const (
	LowerBoundKey = "knee-lower-bound" // LowerBound: "true" or "false"
	NoteKey       = "knee-note"        // Note
	CeilingKey    = "knee-ceiling"     // Ceiling, in req/s
	LeftOutKey    = "knee-left-out"    // LeftOut
)

// Config is the knee's configuration on a sweep's knee line: "knee",
// its String, and its fields under their keys (LowerBoundKey, NoteKey,
// CeilingKey, LeftOutKey).
func (k Knee) Config() [][2]string {
	return [][2]string{{"knee", k.String()}, {LowerBoundKey, strconv.FormatBool(k.LowerBound)},
		{NoteKey, k.Note}, {CeilingKey, strconv.FormatFloat(k.Ceiling, 'f', -1, 64)}, {LeftOutKey, strconv.Itoa(k.LeftOut)}}
}

// KneeOf reads a knee from a knee line: its rate (the knee-req/s value)
// and the configuration get returns by key (Config's). A key absent or
// malformed leaves its field zero; Step is -1 without a rate, else 0 (a
// file does not say which step).
func KneeOf(rate float64, get func(key string) string) Knee {
	k := Knee{Rate: rate, Step: -1, Note: get(NoteKey)}
	if rate > 0 {
		k.Step = 0
	}
	k.LowerBound, _ = strconv.ParseBool(get(LowerBoundKey))
	k.Ceiling, _ = strconv.ParseFloat(get(CeilingKey), 64)
	k.LeftOut, _ = strconv.Atoi(get(LeftOutKey))
	return k
}

// String describes the knee in one line.
func (k Knee) String() string {
	switch {
	case k.Step < 0:
		return "no knee: " + k.Note
	case k.LowerBound:
		return fmt.Sprintf("knee at least %.0f req/s: %s", k.Rate, k.Note)
	}
	return fmt.Sprintf("knee %.0f req/s", k.Rate)
}
