package report

import (
	"math"
	"strconv"

	"gonum.org/v1/plot"
)

// compactLogTicks are log-axis ticks labelled compactly: 1k, 10k, 1M.
type compactLogTicks struct{}

func (compactLogTicks) Ticks(lo, hi float64) []plot.Tick {
	ticks := plot.LogTicks{Prec: -1}.Ticks(lo, hi)
	narrow := hi/lo < 100 // label 2 and 5 too when fewer than two decades show
	for i := range ticks {
		v := ticks[i].Value
		mant := v / math.Pow(10, math.Floor(math.Log10(v)+1e-9))
		near := func(m float64) bool { return math.Abs(mant-m) < 1e-6 }
		if ticks[i].Label != "" || (narrow && (near(2) || near(5))) {
			ticks[i].Label = compact(v)
		}
	}
	return ticks
}

// compactTicks are linear-axis ticks labelled compactly.
type compactTicks struct{}

func (compactTicks) Ticks(lo, hi float64) []plot.Tick {
	ticks := plot.DefaultTicks{}.Ticks(lo, hi)
	for i := range ticks {
		if ticks[i].Label != "" {
			ticks[i].Label = compact(ticks[i].Value)
		}
	}
	return ticks
}

// compact formats v with an SI suffix and at most three significant
// digits: 0.5, 12, 1.5k, 10M.
func compact(v float64) string {
	a := math.Abs(v)
	switch {
	case a >= 1e9:
		return strconv.FormatFloat(v/1e9, 'g', 3, 64) + "G"
	case a >= 1e6:
		return strconv.FormatFloat(v/1e6, 'g', 3, 64) + "M"
	case a >= 1e3:
		return strconv.FormatFloat(v/1e3, 'g', 3, 64) + "k"
	}
	return strconv.FormatFloat(v, 'g', 3, 64)
}
