package report

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/perf/benchfmt"
	"golang.org/x/perf/benchproc"
)

// Layout is what the user asks of a report's columns and rows: benchstat's
// -col and -row projections (comma-separated keys: /ready, goos, .file),
// plus the names MachineKey ("machine"), "commit" and "variant" (the
// variant keys). Empty fields are chosen by what differs between the
// inputs.
type Layout struct{ Col, Row string }

// LayoutError is a -col or -row the report cannot use.
type LayoutError struct{ msg string }

func (e *LayoutError) Error() string { return e.msg }

// MachineKey is the configuration key a report adds to every result when
// the inputs come from several machines: the values of the MachineKeys
// that tell them apart, host first ("vm-a", "vm-b").
const MachineKey = "machine"

// MachineKeys describe a machine, in the order a machine's label takes
// them: its host name, CPU, cores and memory (run records them as
// machine-host, machine-cores, machine-memory), kernel, Go, GOMAXPROCS.
var MachineKeys = []string{"machine-host", "host", "cpu", "machine-cores", "machine-memory", "kernel", "go", "gomaxprocs", "goos", "goarch"}

// metaKeys record how a run went, not what ran: never a row or column.
var metaKeys = []string{"seed", "command", "interrupted", "machine-busy", "machine-rounds", "machine-governor"}

// describesRun reports whether a configuration key records how the run
// went rather than what was run: it never splits results into rows or
// columns.
func describesRun(key string) bool { return slices.Contains(metaKeys, key) }

// addMachine sets MachineKey on every result to the values of the
// machine keys that tell the results' machines apart, each key kept only
// when the keys before it do not already determine it. It sets nothing
// when every result comes from one machine, and reports whether the
// machines differ in hardware (host, CPU, cores or memory), not only in
// software.
func addMachine(results []*benchfmt.Result) (hardware bool) {
	var keys []string
	for _, k := range MachineKeys {
		if distinct(k, results) > 1 && !determined(k, keys, results) {
			keys = append(keys, k)
		}
	}
	if len(keys) == 0 {
		return false
	}
	for _, r := range results {
		var vals []string
		for _, k := range keys {
			v := r.GetConfig(k)
			if v == "" {
				v = "-" // the run did not record it
			}
			vals = append(vals, v)
		}
		r.SetConfig(MachineKey, strings.Join(vals, " "))
		if i, ok := r.ConfigIndex(MachineKey); ok {
			r.Config[i].File = true // a file key: in benchproc's .config
		}
	}
	return slices.ContainsFunc(keys, func(k string) bool { return slices.Contains(hardwareKeys, k) })
}

// hardwareKeys are the MachineKeys that name hardware.
var hardwareKeys = []string{"machine-host", "host", "cpu", "machine-cores", "machine-memory"}

// distinct counts key's values over results ("" for a result without
// it).
func distinct(key string, results []*benchfmt.Result) int {
	seen := map[string]bool{}
	for _, r := range results {
		seen[r.GetConfig(key)] = true
	}
	return len(seen)
}

// determined reports whether the values of keys determine key's value
// in every result (key is constant when keys is empty).
func determined(key string, keys []string, results []*benchfmt.Result) bool {
	by := map[string]string{}
	for _, r := range results {
		var b strings.Builder
		for _, k := range keys {
			b.WriteString(r.GetConfig(k))
			b.WriteByte(0)
		}
		v := r.GetConfig(key)
		if prev, ok := by[b.String()]; ok && prev != v {
			return false
		}
		by[b.String()] = v
	}
	return true
}

// expandKeys turns a -col or -row value into benchproc keys: machine,
// commit and variant expanded, the others as given (quoted when they
// hold characters of the projection syntax).
func expandKeys(s string) []string {
	var out []string
	for _, k := range strings.Split(s, ",") {
		switch k = strings.TrimSpace(k); k {
		case "":
		case "variant":
			for _, v := range VariantKeys {
				out = append(out, "/"+v)
			}
		default:
			out = append(out, k)
		}
	}
	return out
}

// projection parses keys as one projection; keys naming a file
// configuration key are quoted.
func projection(p *benchproc.ProjectionParser, keys []string, what string) (*benchproc.Projection, error) {
	q := make([]string, len(keys))
	for i, k := range keys {
		q[i] = k
		if !strings.HasPrefix(k, "/") && !strings.HasPrefix(k, ".") {
			q[i] = strconv.Quote(k)
		}
	}
	proj, err := p.Parse(strings.Join(q, ","), nil)
	if err != nil {
		msg, _, _ := strings.Cut(err.Error(), "\n")
		return nil, &LayoutError{fmt.Sprintf("%s %q: %s", what, strings.Join(keys, ","), msg)}
	}
	return proj, nil
}

// configKeysOf returns the file configuration keys among keys.
func configKeysOf(keys []string) []string {
	var out []string
	for _, k := range keys {
		if !strings.HasPrefix(k, "/") && !strings.HasPrefix(k, ".") || k == ".file" {
			out = append(out, k)
		}
	}
	return out
}

// allConfigKeys lists every configuration key of results, in the order
// first seen.
func allConfigKeys(results []*benchfmt.Result) []string {
	var keys []string
	for _, r := range results {
		for _, c := range r.Config {
			if !slices.Contains(keys, c.Key) {
				keys = append(keys, c.Key)
			}
		}
	}
	return keys
}

// newProjections returns the projections of results: tables by name and
// unit; columns by lay.Col, else by dims (the configuration keys that
// split runs) when there are any, else by the variant keys; rows by
// lay.Row, else by the rest of the name. Configuration keys that split
// runs but are in neither stay in the rows (never pooled), unless the
// columns' and rows' keys determine them; every other configuration key,
// metadata included, is left out.
func newProjections(lay Layout, dims []string, results []*benchfmt.Result) (projections, error) {
	var parser benchproc.ProjectionParser
	tableBy, _, err := parser.ParseWithUnit(".name", nil)
	if err != nil {
		return projections{}, err
	}
	procsSplit := gomaxprocsSplits(results)
	colKeys, rowKeys := expandKeys(lay.Col), expandKeys(lay.Row)
	if err := checkKeys(colKeys, "-col", results); err != nil {
		return projections{}, err
	}
	if err := checkKeys(rowKeys, "-row", results); err != nil {
		return projections{}, err
	}
	if len(colKeys) == 0 {
		colKeys = autoCols(dims, procsSplit, results)
	}
	chosen := append(configKeysOf(colKeys), configKeysOf(rowKeys)...)
	for _, d := range dims {
		if !slices.Contains(chosen, d) && !determined(d, chosen, results) {
			rowKeys = append(rowKeys, d)
			chosen = append(chosen, d)
		}
	}
	colBy, err := projection(&parser, colKeys, "-col")
	if err != nil {
		return projections{}, err
	}
	var rowBy *benchproc.Projection
	if lay.Row != "" {
		if rowBy, err = projection(&parser, rowKeys, "-row"); err != nil {
			return projections{}, err
		}
	}
	var ignore []string
	for _, k := range allConfigKeys(results) {
		if !slices.Contains(chosen, k) && !slices.Contains(colKeys, k) {
			ignore = append(ignore, k)
		}
	}
	if !procsSplit && !slices.Contains(colKeys, "/gomaxprocs") && !slices.Contains(rowKeys, "/gomaxprocs") {
		// A Go benchmark's "-2" and a peer program's name without one
		// are one case.
		ignore = append(ignore, "/gomaxprocs")
	}
	if len(ignore) > 0 {
		if _, err := projection(&parser, ignore, "ignored keys"); err != nil {
			return projections{}, err
		}
	}
	if rowBy == nil {
		rowBy = parser.Residue()
	}
	return projections{table: tableBy, col: colBy, row: rowBy}, nil
}

// checkKeys refuses run metadata (seed, command, the machine's state per
// round) and a key no result has: a configuration key none carries, a
// name key in no benchmark's name. The machine key stands for
// one machine when the results come from one.
func checkKeys(keys []string, what string, results []*benchfmt.Result) error {
	for _, k := range keys {
		if describesRun(k) {
			return &LayoutError{fmt.Sprintf("%s %s: run metadata (how a run went), never a row or a column", what, k)}
		}
		if k == MachineKey || k == "/gomaxprocs" || (strings.HasPrefix(k, ".") && !strings.HasPrefix(k, ".file")) {
			continue
		}
		found := false
		for _, r := range results {
			if name, ok := strings.CutPrefix(k, "/"); ok {
				found = slices.Contains(VariantKeys, name) || strings.Contains(string(r.Name), "/"+name+"=")
			} else {
				_, found = r.ConfigIndex(k)
			}
			if found {
				break
			}
		}
		if !found {
			return &LayoutError{fmt.Sprintf("%s %s: no result has that key (configuration keys: %s)", what, k, strings.Join(allConfigKeys(results), ", "))}
		}
	}
	return nil
}

// coarsest drops, from the last, each of dims that the others kept
// determine: over commits of one host whose kernel changed once, the
// machine follows the commit and the columns are the commits.
func coarsest(dims []string, results []*benchfmt.Result) []string {
	kept := slices.Clone(dims)
	for i := len(kept) - 1; i >= 0 && len(kept) > 1; i-- {
		others := slices.Delete(slices.Clone(kept), i, i+1)
		if determined(kept[i], others, results) {
			kept = others
		}
	}
	return kept
}

// autoCols are the columns by what differs: the runs (the coarsest of
// dims), else the variants; GOMAXPROCS too when one benchmark ran at
// several.
func autoCols(dims []string, procsSplit bool, results []*benchfmt.Result) []string {
	cols := coarsest(dims, results)
	if procsSplit {
		cols = append(cols, "/gomaxprocs")
	}
	if len(dims) == 0 {
		for _, k := range VariantKeys {
			cols = append(cols, "/"+k)
		}
	}
	return cols
}
