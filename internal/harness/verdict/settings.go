package verdict

import (
	"fmt"
	"strconv"
	"strings"

	"golang.org/x/perf/benchproc"
)

// Settings are the verdict's settings as compare's and gate's command
// lines give them, before they are checked: Options checks them.
type Settings struct {
	Alpha              float64 // family-wise significance level
	MinEffect          string  // a percentage with its sign, "5%"
	Floor              string  // a noise floors file; "" for none
	Force              bool    // compare results from different setups
	Filter             string  // a benchproc filter; "" for all results
	RequireEquivalence bool
	Format             string // "text" or "json"
}

// ParseEffect reads a percentage, "5%" or "0.5%", as a fraction. A bare
// number is refused: "5" and "0.05" are both plausible spellings of 5 %,
// and a wrong guess turns every check off or on.
func ParseEffect(s string) (float64, error) {
	num, pct := strings.CutSuffix(s, "%")
	v, err := strconv.ParseFloat(num, 64)
	if err != nil || v < 0 || !pct {
		return 0, fmt.Errorf("-min-effect %q: want a percentage with its %% sign, such as 5%%", s)
	}
	return v / 100, nil
}

// Options checks the settings and returns the verdict's options and the
// filter (nil when there is none). Each error is one line naming the
// setting that is wrong: bad input, never a failure to judge.
func (s *Settings) Options() (Options, *benchproc.Filter, error) {
	effect, err := ParseEffect(s.MinEffect)
	if err != nil {
		return Options{}, nil, err
	}
	if s.Alpha <= 0 || s.Alpha >= 1 {
		return Options{}, nil, fmt.Errorf("-alpha %g: want a level between 0 and 1", s.Alpha)
	}
	if s.Format != "text" && s.Format != "json" {
		return Options{}, nil, fmt.Errorf("-format %q: want text or json", s.Format)
	}
	o := Options{Alpha: s.Alpha, MinEffect: effect, RequireEquivalence: s.RequireEquivalence}
	if s.Floor != "" {
		if o.Floors, err = ReadFloors(s.Floor); err != nil {
			return o, nil, fmt.Errorf("-floor: %v", err)
		}
	}
	var filter *benchproc.Filter
	if s.Filter != "" {
		if filter, err = benchproc.NewFilter(s.Filter); err != nil {
			msg, _, _ := strings.Cut(err.Error(), "\n") // benchproc points at the column on more lines
			return o, nil, fmt.Errorf("-filter %q: %s", s.Filter, msg)
		}
	}
	return o, filter, nil
}
