package report

import (
	"cmp"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/perf/benchfmt"
)

// ordering sorts rows and columns the same way in every table of a
// report: parts compared in turn, a variant key's default value first,
// numbers by value (p=1000 before p=100000), other names alphabetically,
// and a configuration key's values (machines, commits, files) in the
// order the inputs give them.
type ordering struct {
	def    []KV                      // the default variant's parts
	config map[string]map[string]int // configuration key -> value -> first-seen rank
}

// newOrdering returns the ordering of results' configuration values, the
// default variant def first among variants.
func newOrdering(def []KV, results []*benchfmt.Result) ordering {
	o := ordering{def: def, config: map[string]map[string]int{}}
	for _, r := range results {
		for _, c := range r.Config {
			m := o.config[c.Key]
			if m == nil {
				m = map[string]int{}
				o.config[c.Key] = m
			}
			if _, ok := m[string(c.Value)]; !ok {
				m[string(c.Value)] = len(m)
			}
		}
	}
	return o
}

// compare orders two lists of parts; an empty list (a column without
// the keys the others have) comes last.
func (o ordering) compare(a, b []KV) int {
	if (len(a) == 0) != (len(b) == 0) {
		return cmp.Compare(len(b), len(a))
	}
	for i := range min(len(a), len(b)) {
		if a[i].Key != b[i].Key {
			// A baseline (impl=…) after the loop's variants.
			return cmp.Or(cmp.Compare(isImpl(a[i].Key), isImpl(b[i].Key)), strings.Compare(a[i].Key, b[i].Key))
		}
		if c := o.value(a[i].Key, a[i].Value, b[i].Value); c != 0 {
			return c
		}
	}
	return cmp.Compare(len(a), len(b))
}

// value orders two values of key.
func (o ordering) value(key, x, y string) int {
	if x == y {
		return 0
	}
	if m, ok := o.config[key]; ok && !slices.Contains(VariantKeys, key) {
		return cmp.Compare(m[x], m[y])
	}
	for _, d := range o.def {
		if d.Key == key {
			switch d.Value {
			case x:
				return -1
			case y:
				return 1
			}
		}
	}
	fx, errx := strconv.ParseFloat(x, 64)
	fy, erry := strconv.ParseFloat(y, 64)
	switch {
	case errx == nil && erry == nil:
		return cmp.Compare(fx, fy)
	case errx == nil:
		return -1
	case erry == nil:
		return 1
	}
	return strings.Compare(x, y)
}

// shortenRowLabels labels the rows by the parts that differ between
// them, a variant's parts bare as the columns name them
// ("heap4ary/op=churn", not "timers=heap4ary/op=churn"); the parts every
// row shares go to Table.Common, which the title shows.
func (t *Table) shortenRowLabels() {
	if len(t.Rows) > 1 {
		for _, p := range t.Rows[0].Parts {
			if !slices.ContainsFunc(t.Rows[1:], func(r Row) bool { return !slices.Contains(r.Parts, p) }) {
				t.Common = append(t.Common, p)
			}
		}
	}
	for i, r := range t.Rows {
		var parts []KV
		for _, p := range r.Parts {
			if !slices.Contains(t.Common, p) {
				parts = append(parts, p)
			}
		}
		if l := joinParts(bare(parts)); l != "" {
			t.Rows[i].Label = l
		}
	}
}

// bareKeys are the variant keys whose values name themselves.
var bareKeys = []string{"ready", "timers", "selector", MachineKey}

// isImpl is 1 for the baseline key, else 0.
func isImpl(key string) int {
	if key == "impl" {
		return 1
	}
	return 0
}
