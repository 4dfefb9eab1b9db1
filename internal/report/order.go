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

// compare orders two lists of parts.
func (o ordering) compare(a, b []KV) int {
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

// shortenRowLabels names a variant's parts in the rows bare, as the
// columns do: "ringbuffer/heap4ary/epoll/op=churn", not "ready=…".
func (t *Table) shortenRowLabels() {
	for i, r := range t.Rows {
		parts := slices.Clone(r.Parts)
		for j, p := range parts {
			if slices.Contains(bareKeys, p.Key) {
				parts[j].Key = ""
			}
		}
		if l := joinParts(parts); l != "" {
			t.Rows[i].Label = l
		}
	}
}

// bareKeys are the variant keys whose values name themselves.
var bareKeys = []string{"ready", "timers", "selector"}

// isImpl is 1 for the baseline key, else 0.
func isImpl(key string) int {
	if key == "impl" {
		return 1
	}
	return 0
}
