package verdict

import (
	"fmt"
	"strings"

	"github.com/loopbench/loopbench/internal/measure/benchdata"
	"github.com/loopbench/loopbench/internal/measure/loadresult"
	"golang.org/x/perf/benchproc"
)

// ExitMalformed is the exit status of a judgment whose files had
// malformed lines and no regression: what could be read was judged.
const ExitMalformed = 2

// Judgment is the verdict on two files, as compare and gate print it.
type Judgment struct {
	Matched   *Matched
	Verdict   *Verdict
	Options   Options
	Malformed []string // a summary per file with malformed lines
}

// Failure is a judgment that did not pass, as an error: Exit is
// ExitRegression, ExitMalformed or ExitUndecided.
type Failure struct {
	Exit int
	msg  string
}

func (f *Failure) Error() string { return f.msg }

// Judge reads base and head, matches them, orders the pairs (SortPairs)
// and decides. Its error means the files cannot be compared.
func Judge(basePath, headPath string, o Options, filter *benchproc.Filter, force bool) (*Judgment, error) {
	sets, m, err := MatchFiles(basePath, headPath, filter, force)
	if err != nil {
		return nil, err
	}
	SortPairs(m)
	j := &Judgment{Matched: m, Verdict: Decide(m.Pairs, o), Options: o}
	for _, s := range sets {
		if len(s.Malformed) > 0 {
			j.Malformed = append(j.Malformed, malformedSummary(s))
		}
	}
	return j, nil
}

// Err is nil when the judgment passes, else a *Failure: a regression
// first, then malformed lines, then undecided comparisons.
func (j *Judgment) Err() error {
	v := j.Verdict
	also := ""
	if j.Malformed != nil {
		also = "; also " + strings.Join(j.Malformed, "; ") + " (the table covers the lines that could be read)"
	}
	switch {
	case v.Exit() == ExitRegression:
		return &Failure{ExitRegression, fmt.Sprintf("%s beyond the minimum effect, listed at the end of the table%s", plural(v.Count(Regressed), "regression"), also)}
	case j.Malformed != nil:
		return &Failure{ExitMalformed, fmt.Sprintf("%s (the table covers the lines that could be read)", strings.Join(j.Malformed, "; "))}
	case v.Exit() == ExitUndecided:
		return &Failure{ExitUndecided, fmt.Sprintf("%s undecided: %s", plural(v.Count(Undecided), "comparison"), v.NeedMessage())}
	}
	return nil
}

// MatchFiles reads base and head and matches them.
func MatchFiles(basePath, headPath string, filter *benchproc.Filter, force bool) ([2]*benchdata.Set, *Matched, error) {
	var sets [2]*benchdata.Set
	for i, path := range []string{basePath, headPath} {
		s, err := benchdata.ReadFile(path, filter)
		if err != nil {
			if s != nil && len(s.Malformed) > 0 {
				err = fmt.Errorf("%w; %s", err, malformedSummary(s))
			}
			return sets, nil, err
		}
		sets[i] = s
	}
	m, err := Match(sets[0], sets[1], force)
	if err != nil {
		return sets, nil, err
	}
	return sets, m, nil
}

// NeedMessage says why comparisons are undecided: exact units whose
// repeats disagree, and tests that need more samples (how many a side
// would do, ties counted).
func (v *Verdict) NeedMessage() string {
	ranges, tests := 0, 0
	for _, c := range v.Comparisons {
		switch {
		case c.Status != Undecided:
		case c.Rule == RuleRange:
			ranges++
		default:
			tests++
		}
	}
	var parts []string
	if ranges > 0 {
		parts = append(parts, fmt.Sprintf("%d of exact units whose repeats disagree across the minimum effect", ranges))
	}
	if tests > 0 {
		msg := fmt.Sprintf("too few samples for alpha %g over %s", v.Alpha, plural(v.Tests, "test"))
		if v.Need > 0 {
			msg += fmt.Sprintf("; %d per side would do", v.Need)
		}
		if v.Unreachable > 0 {
			msg += fmt.Sprintf("; %s too tied for any count up to %d to decide", plural(v.Unreachable, "test"), MaxSamples)
		}
		parts = append(parts, msg)
	}
	return strings.Join(parts, "; ")
}

// malformedSummary names a file's first malformed line and counts the
// others.
func malformedSummary(s *benchdata.Set) string {
	msg := fmt.Sprintf("malformed results: %s", s.Malformed[0])
	if n := len(s.Malformed); n > 1 {
		msg += fmt.Sprintf(" (and %s more)", plural(n-1, "line"))
	}
	return msg
}

// plural is n and noun, as every output of the harness counts.
func plural(n int, noun string) string { return loadresult.Plural(n, noun) }
