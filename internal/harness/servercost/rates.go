package servercost

import (
	"fmt"
	"math"
	"strconv"
	"time"
)

// The fixed-rate loads of the server-side rows.
const (
	costConns = 50   // connections of every fixed-rate load
	costSize  = 1024 // bytes per request
)

// LowCeilingError is Rates' error for a ceiling too low to choose rates
// from.
type LowCeilingError struct{ Ceiling float64 }

func (e *LowCeilingError) Error() string {
	return fmt.Sprintf("the floor client's closed-loop ceiling, %.4g req/s, is too low to choose rates from", e.Ceiling)
}

// Rates are the fixed rates chosen from the load's closed-loop ceiling:
// a quarter and a half of it, rounded down to two significant figures
// (70,123 req/s gives 17,000 and 35,000).
func Rates(ceiling float64) ([]float64, error) {
	if !(ceiling >= 8) {
		return nil, &LowCeilingError{Ceiling: ceiling}
	}
	return []float64{roundDown2(ceiling / 4), roundDown2(ceiling / 2)}, nil
}

// roundDown2 rounds x (at least 1) down to two significant figures, and
// to a whole number.
func roundDown2(x float64) float64 {
	unit := math.Max(1, math.Pow(10, math.Floor(math.Log10(x))-1))
	return math.Max(1, math.Floor(x/unit)*unit)
}

// RateString prints a rate as the benchmark names and the lines give it.
func RateString(rate float64) string { return strconv.FormatFloat(rate, 'f', -1, 64) }

// joinRates prints rates as "17000 and 35000".
func joinRates(rates []float64) string {
	s := ""
	for i, r := range rates {
		if i > 0 {
			s += " and "
		}
		s += RateString(r)
	}
	return s
}

// loadCounts are a fixed-rate load's counts.
type loadCounts struct{ answered, errors float64 }

// MissError says how a load did not meet its rate: it had errors, or it
// answered under 99 % of the rate × window requests it was to send.
type MissError struct {
	Errors, Answered, Intended float64
}

func (e *MissError) Error() string {
	if e.Errors > 0 {
		return fmt.Sprintf("%.0f errors", e.Errors)
	}
	return fmt.Sprintf("%.0f of %.0f requests answered", e.Answered, e.Intended)
}

// missed is nil when a load at rate for window met it, else why not:
// no errors, and at least 99 % of the rate × window requests answered.
// The floor client's schedule is fixed in advance and it waits 2 s after
// the window for the last answers, so a server that falls behind by more
// than that misses; one behind by less answers them all, and its p99-ns,
// beside its figures, shows how late.
func missed(rate float64, window time.Duration, n loadCounts) *MissError {
	intended := rate * window.Seconds()
	if n.errors > 0 || n.answered < 0.99*intended {
		return &MissError{Errors: n.errors, Answered: n.answered, Intended: intended}
	}
	return nil
}
