package report

import (
	"fmt"
	"slices"
	"strings"

	"golang.org/x/perf/benchfmt"
)

// runNames names each input file of several by the path elements that
// tell it from the others ("runA" for runA/raw.txt beside runB/raw.txt),
// in the order read; nil for one file. A run is named this way wherever
// the report speaks of it: its column, its metadata, its banner.
func runNames(results []*benchfmt.Result) ([]string, map[string]string) {
	var files []string
	for _, r := range results {
		if f := r.GetConfig(".file"); !slices.Contains(files, f) {
			files = append(files, f)
		}
	}
	if len(files) < 2 || slices.Contains(files, "") {
		return nil, nil
	}
	return files, shortValues(".file", files)
}

// runValues returns key's value in each run, named: "runA: yes (…)";
// "-" stands for a run that did not record it.
func runValues(key string, results []*benchfmt.Result, files []string, names map[string]string) []KV {
	var out []KV
	for _, f := range files {
		v := "-"
		for _, r := range results {
			if r.GetConfig(".file") == f {
				if got := r.GetConfig(key); got != "" {
					v = got
				}
				break
			}
		}
		out = append(out, KV{names[f], v})
	}
	return out
}

// joinRuns writes named values as "runA: yes (…); runB: no".
func joinRuns(kvs []KV) string {
	s := make([]string, len(kvs))
	for i, kv := range kvs {
		s[i] = kv.Key + ": " + kv.Value
	}
	return strings.Join(s, "; ")
}

// busyBanner is the banner of the runs the machine was busy in (busy
// holds each run's machine-busy value, named), or "".
func busyBanner(busy []KV) string {
	var named []string
	for _, kv := range busy {
		if v, ok := strings.CutPrefix(kv.Value, "yes"); ok {
			named = append(named, kv.Key+strings.TrimRight(v, " "))
		}
	}
	switch len(named) {
	case 0:
		return ""
	case 1:
		return fmt.Sprintf("The machine was busy during run %s. Other work's noise is in its figures.", named[0])
	}
	return fmt.Sprintf("The machine was busy during runs %s. Other work's noise is in their figures.", strings.Join(named, "; "))
}

// sources names where the results came from: the files, or the runs
// when Runs names them.
func (rep *Report) sources() string {
	if len(rep.Runs) > 0 {
		return fmt.Sprintf("the %d runs", len(rep.Runs))
	}
	return strings.Join(rep.Files, ", ")
}
