package verdict

import (
	"fmt"
	"slices"
	"strings"

	"github.com/loopbench/loopbench/internal/measure/benchdata"
)

// IdentityKeys name a run, not its setup (seed is the case order's): they are expected to differ
// between base and head and are not matched, but a file must hold one
// value of each (several commits in one file are several runs).
var IdentityKeys = []string{"commit", "commit-time", "side", "command", "date", "seed", "interrupted"}

// isIdentity reports whether key names a run: an IdentityKeys key, or the
// machine's recorded state (machine-busy, machine-rounds...).
func isIdentity(key string) bool {
	return slices.Contains(IdentityKeys, key) || strings.HasPrefix(key, "machine-")
}

// identityKeys lists s's keys that name a run.
func identityKeys(s *benchdata.Set) []string {
	var out []string
	for _, k := range s.KeyOrder {
		if isIdentity(k) {
			out = append(out, k)
		}
	}
	return out
}

// MachineKeys describe the setup: base and head must agree on each that
// both files give, unless forced.
var MachineKeys = []string{"goos", "goarch", "cpu", "kernel", "go", "gomaxprocs"}

// Matched is the outcome of matching two files' samples.
type Matched struct {
	Pairs []Pair
	// BaseOnly and HeadOnly name the benchmarks (group and name) found on
	// one side only.
	BaseOnly, HeadOnly []string
	// Groups are the configuration groups the pairs fall into, in order; a
	// single "" when the files hold one setup.
	Groups []string
}

// SetupError is a refusal to compare: nothing in common, different
// machines, or several runs in one file.
type SetupError struct{ Msg string }

func (e *SetupError) Error() string { return e.Msg }

// Match pairs base's and head's samples by configuration group, name and
// unit, as benchstat's tables do: results whose configurations differ in
// a key both files give are never pooled. Identity keys are ignored, and
// machine keys too when force is set. It refuses (a *SetupError) files
// whose machine keys differ, a file that holds several values of an
// identity key, and files with no benchmark in common.
func Match(base, head *benchdata.Set, force bool) (*Matched, error) {
	for _, s := range []*benchdata.Set{base, head} {
		if err := oneRun(s); err != nil {
			return nil, err
		}
	}
	split, err := splitKeys(base, head, force)
	if err != nil {
		return nil, err
	}
	g := newGrouping(base, head, split)
	heads, err := index(head, split)
	if err != nil {
		return nil, err
	}
	if _, err := index(base, split); err != nil {
		return nil, err
	}
	m := pairSamples(base, head, heads, g)
	m.BaseOnly, m.HeadOnly = onlyIn(base, head, g), onlyIn(head, base, g)
	if len(m.Pairs) == 0 {
		return nil, &SetupError{fmt.Sprintf("nothing to compare: %s and %s have no benchmark in common%s", base.Path, head.Path, hint(base, head))}
	}
	return m, nil
}

// oneRun refuses a file that holds several values of an identity key:
// several runs.
func oneRun(s *benchdata.Set) error {
	for _, k := range identityKeys(s) {
		if vals := s.Keys[k]; len(vals) > 1 {
			return &SetupError{fmt.Sprintf("%s holds %d runs (%s: %s): select one with -filter, e.g. -filter '%s:%s'",
				s.Path, len(vals), k, strings.Join(short(vals), ", "), k, vals[0])}
		}
	}
	return nil
}

// splitKeys returns the configuration keys both files give, in base's
// order, but for identity keys, and machine keys when force is set: the
// keys whose values keep results apart. It refuses machine keys whose
// values differ between the files.
func splitKeys(base, head *benchdata.Set, force bool) ([]string, error) {
	var diffs []string
	var split []string
	for _, k := range base.KeyOrder {
		bv, hv := base.Keys[k], head.Keys[k]
		if hv == nil || isIdentity(k) {
			continue
		}
		if slices.Contains(MachineKeys, k) {
			if force {
				continue
			}
			if !sameSet(bv, hv) {
				diffs = append(diffs, fmt.Sprintf("%s %s vs %s", k, quoteAll(bv), quoteAll(hv)))
			}
		}
		split = append(split, k)
	}
	if diffs != nil {
		return nil, &SetupError{fmt.Sprintf("the files come from different setups (%s): use -force to compare them anyway", strings.Join(diffs, "; "))}
	}
	return split, nil
}

// grouping sorts samples into configuration groups by the split keys.
type grouping struct {
	split   []string // the keys that keep results apart
	varying []string // those of them with several values: the label shows only these
}

// newGrouping returns the grouping of base and head by the split keys.
func newGrouping(base, head *benchdata.Set, split []string) grouping {
	g := grouping{split: split}
	for _, k := range split {
		if len(union(base.Keys[k], head.Keys[k])) > 1 {
			g.varying = append(g.varying, k)
		}
	}
	return g
}

// label is the group of a configuration as a reader sees it: "k=v ..."
// of the varying keys, "" when none varies.
func (g grouping) label(c benchdata.Config) string {
	parts := make([]string, 0, len(g.varying))
	for _, k := range g.varying {
		parts = append(parts, k+"="+c.Get(k))
	}
	return strings.Join(parts, " ")
}

// nameKey is a benchmark in its group: the split keys' values and its
// name.
func (g grouping) nameKey(x *benchdata.Sample) [2]string {
	return [2]string{x.Config.Project(g.split), x.Name}
}

// pairSamples pairs each of base's samples with head's of the same
// group, name and unit (heads, as index returns it), in base's order.
func pairSamples(base, head *benchdata.Set, heads map[sampleKey]*benchdata.Sample, g grouping) *Matched {
	m := &Matched{}
	for _, b := range base.Samples {
		h := heads[sampleKey{b.Config.Project(g.split), b.Name, b.Unit}]
		if h == nil {
			continue
		}
		label := g.label(b.Config)
		if !slices.Contains(m.Groups, label) {
			m.Groups = append(m.Groups, label)
		}
		m.Pairs = append(m.Pairs, Pair{Group: label, Name: b.Name, Unit: b.Unit, Better: head.Better(b.Unit),
			ExactUnit: base.Exact(b.Unit) || head.Exact(b.Unit), Base: b.Values, Head: h.Values})
	}
	return m
}

// onlyIn names, once each and in s's order, the benchmarks of s (group
// and name) that other does not have in any unit.
func onlyIn(s, other *benchdata.Set, g grouping) []string {
	theirs := map[[2]string]bool{}
	for _, x := range other.Samples {
		theirs[g.nameKey(x)] = true
	}
	var out []string
	for _, x := range s.Samples {
		if theirs[g.nameKey(x)] {
			continue
		}
		l := x.Name
		if label := g.label(x.Config); label != "" {
			l = label + " " + l
		}
		if !slices.Contains(out, l) {
			out = append(out, l)
		}
	}
	return out
}

// sampleKey is a sample's place in a file: its split keys' values, name
// and unit.
type sampleKey struct{ cfg, name, unit string }

// index maps s's samples by the split keys' values, name and unit. Two
// samples on one key differ only in keys the other file does not give:
// pooling them would mix configurations and keeping one would drop the
// other's values, so it is refused.
func index(s *benchdata.Set, split []string) (map[sampleKey]*benchdata.Sample, error) {
	out := map[sampleKey]*benchdata.Sample{}
	for _, x := range s.Samples {
		k := sampleKey{x.Config.Project(split), x.Name, x.Unit}
		if prev := out[k]; prev != nil {
			return nil, &SetupError{fmt.Sprintf("%s: %s %s appears under two configurations (%s and %s) that the other file cannot tell apart: select one with -filter",
				s.Path, x.Name, x.Unit, prev.Config, x.Config)}
		}
		out[k] = x
	}
	return out, nil
}

// hint names what keeps two files apart when nothing matched.
func hint(base, head *benchdata.Set) string {
	var keys []string
	for _, k := range base.KeyOrder {
		if hv := head.Keys[k]; hv != nil && !isIdentity(k) && !sameSet(base.Keys[k], hv) {
			keys = append(keys, fmt.Sprintf("%s %s vs %s", k, quoteAll(base.Keys[k]), quoteAll(hv)))
		}
	}
	if keys == nil {
		return ""
	}
	return " (their configurations differ: " + strings.Join(keys, "; ") + ")"
}

// sameSet reports whether a and b hold the same values.
func sameSet(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for _, x := range a {
		if !slices.Contains(b, x) {
			return false
		}
	}
	return true
}

// union returns a's values and then b's that a lacks.
func union(a, b []string) []string {
	out := slices.Clone(a)
	for _, x := range b {
		if !slices.Contains(out, x) {
			out = append(out, x)
		}
	}
	return out
}

// quoteAll quotes the values and joins them with commas.
func quoteAll(vals []string) string {
	q := make([]string, len(vals))
	for i, v := range vals {
		q[i] = fmt.Sprintf("%q", v)
	}
	return strings.Join(q, ",")
}

// short abbreviates commit-like values for a message.
func short(vals []string) []string {
	out := make([]string, len(vals))
	for i, v := range vals {
		if len(v) > 12 {
			v = v[:12]
		}
		out[i] = v
	}
	return out
}
