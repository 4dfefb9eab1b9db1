package report

import (
	"path"
	"slices"
	"strings"

	"golang.org/x/perf/benchfmt"
)

// dimPreference orders the configuration keys that can name a run's
// column: of several keys that split the results alike, the first here is
// kept ("machine=…" over "side=head" over "commit=…"), and .file last.
// Where the machines differ only in software (kernel, Go, GOMAXPROCS on
// one host), softPreference puts the commit first: an upgrade is part of
// the history.
var (
	dimPreference  = []string{MachineKey, "side", "commit", "date"}
	softPreference = []string{"side", "commit", "date", MachineKey}
)

func dimRank(pref []string, k string) int {
	if i := slices.Index(pref, k); i >= 0 {
		return i
	}
	if k == ".file" {
		return len(pref) + 2
	}
	return len(pref) + 1
}

// distinctDims keeps one key of each set of dims that split the results
// into the same groups, the machine first when hardware is set (two files of two runs differ in .file, commit,
// command and seed at once: one of them names the columns).
func distinctDims(dims []string, results []*benchfmt.Result, hardware bool) []string {
	pref := softPreference
	if hardware {
		pref = dimPreference
	}
	order := slices.Clone(dims)
	slices.SortStableFunc(order, func(a, b string) int { return dimRank(pref, a) - dimRank(pref, b) })
	var kept []string
	for _, d := range order {
		if !slices.ContainsFunc(kept, func(k string) bool { return samePartition(k, d, results) }) {
			kept = append(kept, d)
		}
	}
	// Back in the files' order, for stable column keys.
	return slices.DeleteFunc(slices.Clone(dims), func(d string) bool { return !slices.Contains(kept, d) })
}

// samePartition reports whether keys a and b group results alike: each
// value of one goes with one value of the other.
func samePartition(a, b string, results []*benchfmt.Result) bool {
	ab, ba := map[string]string{}, map[string]string{}
	for _, r := range results {
		va, vb := r.GetConfig(a), r.GetConfig(b)
		if x, ok := ab[va]; ok && x != vb {
			return false
		}
		if x, ok := ba[vb]; ok && x != va {
			return false
		}
		ab[va], ba[vb] = vb, va
	}
	return true
}

// shortValues names each value of a column key by what differs: paths
// without their common directories and file name, commits at 12
// characters, long values cut.
func shortValues(key string, vals []string) map[string]string {
	out := map[string]string{}
	switch {
	case key == ".file" && len(vals) > 1:
		parts := make([][]string, len(vals))
		for i, v := range vals {
			parts[i] = strings.Split(path.Clean(v), "/")
		}
		pre, suf := commonEnds(parts)
		for i, v := range vals {
			p := parts[i]
			if mid := p[pre : len(p)-suf]; len(mid) > 0 {
				out[v] = strings.Join(mid, "/")
			} else {
				out[v] = v
			}
		}
	default:
		limit := 24
		if key == "commit" {
			limit = 12
		}
		for _, v := range vals {
			if len(v) > limit {
				out[v] = v[:limit] + "…"
			} else {
				out[v] = v
			}
		}
	}
	return out
}

// commonEnds returns how many leading and trailing path elements all of
// parts share, leaving at least one element of each.
func commonEnds(parts [][]string) (pre, suf int) {
	shortest := len(parts[0])
	for _, p := range parts {
		shortest = min(shortest, len(p))
	}
	for ; pre < shortest-1; pre++ {
		if !allEqual(parts, func(p []string) string { return p[pre] }) {
			break
		}
	}
	for ; suf < shortest-1-pre; suf++ {
		if !allEqual(parts, func(p []string) string { return p[len(p)-1-suf] }) {
			break
		}
	}
	return pre, suf
}

func allEqual(parts [][]string, at func([]string) string) bool {
	for _, p := range parts[1:] {
		if at(p) != at(parts[0]) {
			return false
		}
	}
	return true
}
