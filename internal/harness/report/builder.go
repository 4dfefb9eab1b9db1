package report

import (
	"regexp"
	"slices"
	"strings"

	"golang.org/x/perf/benchmath"
	"golang.org/x/perf/benchproc"
)

// builder collects values by table, row and column key, in the order
// first seen.
type builder struct {
	colBy, rowBy *benchproc.Projection
	short        map[string]map[string]string // column keys' values by what differs
	ord          ordering
	o            Options
	byKey        map[benchproc.Key]*rawTable
	order        []benchproc.Key
}

type rawTable struct {
	workload, unit string
	better         int
	rows, cols     []benchproc.Key
	cells          map[[2]benchproc.Key][]float64
}

func newBuilder(colBy, rowBy *benchproc.Projection, o Options) *builder {
	return &builder{colBy: colBy, rowBy: rowBy, o: o, byKey: map[benchproc.Key]*rawTable{}}
}

func (b *builder) add(tk, rk, ck benchproc.Key, v float64, better int) {
	t := b.byKey[tk]
	if t == nil {
		fields := tk.Projection().Fields()
		t = &rawTable{workload: tk.Get(fields[0]), unit: tk.Get(fields[len(fields)-1]), better: better, cells: map[[2]benchproc.Key][]float64{}}
		b.byKey[tk] = t
		b.order = append(b.order, tk)
	}
	k := [2]benchproc.Key{rk, ck}
	if _, ok := t.cells[k]; !ok {
		if !slices.Contains(t.rows, rk) {
			t.rows = append(t.rows, rk)
		}
		if !slices.Contains(t.cols, ck) {
			t.cols = append(t.cols, ck)
		}
	}
	t.cells[k] = append(t.cells[k], v)
}

// generic units are the ones every benchmark reports (and B/s, which go
// test derives from sec/op); a case's headline is its own metrics when it
// has any, else time per operation.
var generic = []string{"sec/op", "B/op", "allocs/op", "B/s"}

// tables builds the report's tables: per workload, one per headline unit
// with the cases it heads, and allocs/op when any case allocates.
func (b *builder) tables() []*Table {
	own := map[string]map[benchproc.Key]bool{} // workload -> rows with metrics of their own
	for _, tk := range b.order {
		t := b.byKey[tk]
		if slices.Contains(generic, t.unit) {
			continue
		}
		if own[t.workload] == nil {
			own[t.workload] = map[benchproc.Key]bool{}
		}
		for _, r := range t.rows {
			own[t.workload][r] = true
		}
	}
	var out []*Table
	for _, tk := range b.order {
		raw := b.byKey[tk]
		var rows []benchproc.Key
		switch raw.unit {
		case "B/op":
			continue
		case "allocs/op":
			if !raw.anyNonZero() {
				continue
			}
			rows = raw.rows
		case "sec/op":
			for _, r := range raw.rows {
				if !own[raw.workload][r] {
					rows = append(rows, r)
				}
			}
		default:
			rows = raw.rows
		}
		if len(rows) > 0 {
			out = append(out, b.build(raw, rows))
		}
	}
	return out
}

func (t *rawTable) anyNonZero() bool {
	for _, vs := range t.cells {
		for _, v := range vs {
			if v != 0 {
				return true
			}
		}
	}
	return false
}

// build makes a Table of raw's rows: the columns ordered default first,
// then the other variants, then the baselines, each cell summarized.
func (b *builder) build(raw *rawTable, rows []benchproc.Key) *Table {
	t := &Table{Workload: raw.workload, Unit: raw.unit, Better: raw.better, cells: map[[2]int]*Cell{}}
	if t.Better == 0 {
		t.Better = -1
	}
	kinds := colKinds{def: parseParts(b.o.Default), peers: b.o.Peers}
	cols := presentCols(raw, rows)
	slices.SortStableFunc(cols, func(x, y benchproc.Key) int {
		if d := kinds.rank(x) - kinds.rank(y); d != 0 {
			return d
		}
		return b.ord.compare(keyParts(x), keyParts(y))
	})
	t.Cols = b.columns(cols, kinds)
	rowVarying := varyingFields(rows)
	rows = slices.Clone(rows)
	slices.SortStableFunc(rows, func(x, y benchproc.Key) int {
		return b.ord.compare(rowOf(x, rowVarying).Parts, rowOf(y, rowVarying).Parts)
	})
	for _, r := range rows {
		t.Rows = append(t.Rows, rowOf(r, rowVarying))
	}
	t.shortenRowLabels()
	b.summarize(t, raw, rows, cols)
	t.compareRows()
	return t
}

// presentCols returns raw's columns that have a value in one of rows, in
// raw's order.
func presentCols(raw *rawTable, rows []benchproc.Key) []benchproc.Key {
	var cols []benchproc.Key
	for _, c := range raw.cols {
		for _, r := range rows {
			if _, ok := raw.cells[[2]benchproc.Key{r, c}]; ok {
				cols = append(cols, c)
				break
			}
		}
	}
	return cols
}

// colKinds tells what a column is: the default variant (def), another
// variant, a peer (its /impl one of peers) or a baseline (any other
// /impl).
type colKinds struct {
	def   []KV
	peers []string
}

// impl returns the column's /impl, "" for a variant of the loop.
func (k colKinds) impl(c benchproc.Key) string {
	if f := fieldNamed(c, "/impl"); f != nil {
		return c.Get(f)
	}
	return ""
}

// isDefault reports whether the column is the default variant.
func (k colKinds) isDefault(c benchproc.Key) bool {
	return k.def != nil && sameVariant(keyParts(c), k.def)
}

// isPeer reports whether the column is another loop.
func (k colKinds) isPeer(c benchproc.Key) bool { return slices.Contains(k.peers, k.impl(c)) }

// isBaseline reports whether the column is a baseline in Go.
func (k colKinds) isBaseline(c benchproc.Key) bool { return k.impl(c) != "" && !k.isPeer(c) }

// rank orders the columns: the default variant, the other variants,
// the peers, the baselines.
func (k colKinds) rank(c benchproc.Key) int {
	switch {
	case k.isDefault(c):
		return 0
	case k.isPeer(c):
		return 2
	case k.isBaseline(c):
		return 3
	}
	return 1
}

// columns labels the columns by the keys that vary among the variants
// (among all columns when there are fewer than two variants).
func (b *builder) columns(cols []benchproc.Key, kinds colKinds) []Col {
	var variants []benchproc.Key
	for _, c := range cols {
		if kinds.impl(c) == "" {
			variants = append(variants, c)
		}
	}
	varying := varyingFields(variants)
	if len(variants) < 2 {
		varying = varyingFields(cols)
	}
	var out []Col
	for _, c := range cols {
		out = append(out, Col{Label: colLabel(c, varying, b.short), Parts: keyParts(c), Baseline: kinds.isBaseline(c), Peer: kinds.isPeer(c)})
	}
	return out
}

// summarize fills t's cells: each case's values on each column, with
// their summary at the report's confidence.
func (b *builder) summarize(t *Table, raw *rawTable, rows, cols []benchproc.Key) {
	for i, r := range rows {
		for j, c := range cols {
			vs, ok := raw.cells[[2]benchproc.Key{r, c}]
			if !ok {
				continue
			}
			s := benchmath.NewSample(slices.Clone(vs), &benchmath.DefaultThresholds)
			t.cells[[2]int{i, j}] = &Cell{Values: vs, Summary: benchmath.AssumeNothing.Summary(s, b.o.Confidence)}
		}
	}
}

// keyParts lists a key's non-empty fields as "key=value" parts, without
// the leading "/" of name keys.
func keyParts(k benchproc.Key) []KV {
	var out []KV
	for _, f := range k.Projection().FlattenedFields() {
		if v := k.Get(f); v != "" {
			out = append(out, KV{strings.TrimPrefix(f.Name, "/"), v})
		}
	}
	return out
}

func fieldNamed(k benchproc.Key, name string) *benchproc.Field {
	for _, f := range k.Projection().FlattenedFields() {
		if f.Name == name {
			return f
		}
	}
	return nil
}

// varyingFields returns the names of the fields whose value differs
// between keys.
func varyingFields(keys []benchproc.Key) map[string]bool {
	out := map[string]bool{}
	for _, f := range benchproc.NonSingularFields(keys) {
		out[f.Name] = true
	}
	return out
}

// colLabel names a column by the fields that tell it from the others:
// "impl=chan", "deque/poll", "heap2ary/cancel=lazy", "side=head
// ringbuffer", "runA" (a file by its run's name); a configuration key's
// value as short names it.
func colLabel(c benchproc.Key, varying map[string]bool, short map[string]map[string]string) string {
	var parts []string
	for _, f := range c.Projection().FlattenedFields() {
		v := c.Get(f)
		if v == "" || (!varying[f.Name] && f.Name != "/impl") {
			continue
		}
		switch f.Name {
		case "/ready", "/timers", "/selector", MachineKey:
			parts = append(parts, v)
		case ".file":
			parts = append(parts, short[f.Name][v]) // the run's name
		default:
			if sv, ok := short[f.Name][v]; ok {
				v = sv
			}
			parts = append(parts, strings.TrimPrefix(strings.TrimPrefix(f.Name, "/"), ".")+"="+v)
		}
	}
	if len(parts) == 0 {
		if kv := keyParts(c); len(kv) > 0 {
			return joinParts(kv)
		}
		if len(varying) > 0 {
			return "(none)" // the others have a value of the column keys
		}
		return "value"
	}
	return strings.Join(parts, "/")
}

var procsSuffix = regexp.MustCompile(`-[0-9]+$`)

// rowOf reads a row key: the rest of the benchmark's name ("*/op=churn/
// p=1000-2" is "op=churn/p=1000"), and configuration fields that vary
// within the table.
func rowOf(r benchproc.Key, varying map[string]bool) Row {
	var row Row
	for _, f := range r.Projection().FlattenedFields() {
		v := r.Get(f)
		if f.Name == ".fullname" {
			v = procsSuffix.ReplaceAllString(strings.TrimPrefix(strings.TrimPrefix(v, "*"), "/"), "")
			for _, seg := range strings.Split(v, "/") {
				if seg == "" {
					continue
				}
				k, val, ok := strings.Cut(seg, "=")
				if !ok {
					k, val = "", seg
				}
				row.Parts = append(row.Parts, KV{k, val})
			}
			continue
		}
		if varying[f.Name] && v != "" {
			row.Parts = append(row.Parts, KV{f.Name, v})
		}
	}
	row.Label = joinParts(row.Parts)
	if row.Label == "" {
		row.Label = "(all)"
	}
	return row
}

func joinParts(parts []KV) string {
	s := make([]string, len(parts))
	for i, p := range parts {
		if p.Key == "" {
			s[i] = p.Value
		} else {
			s[i] = p.Key + "=" + p.Value
		}
	}
	return strings.Join(s, "/")
}

// parseParts reads "ready=ringbuffer/timers=heap4ary".
func parseParts(s string) []KV {
	if s == "" {
		return nil
	}
	var out []KV
	for _, seg := range strings.Split(s, "/") {
		k, v, _ := strings.Cut(seg, "=")
		out = append(out, KV{k, v})
	}
	return out
}

// sameVariant reports whether a column's variant keys are exactly def's.
func sameVariant(parts, def []KV) bool {
	var variant []KV
	for _, p := range parts {
		if slices.Contains(VariantKeys, p.Key) {
			variant = append(variant, p)
		}
	}
	return slices.Equal(variant, def)
}
