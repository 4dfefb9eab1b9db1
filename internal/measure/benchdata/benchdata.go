// Package benchdata is the one reader of benchmark results files in the Go
// benchmark format (what go test -bench, loopbench run, loopbench gate and
// the peer programs write), for compare, gate and report alike: the
// results as benchfmt gives them, for benchproc projections, and samples:
// the values of one benchmark, in one unit, under one configuration, over
// every line that reported it.
//
// Reading goes through golang.org/x/perf/benchfmt, filtering through
// benchproc's filter language (the -filter of benchstat). A benchmark's
// GOMAXPROCS suffix ("-2") is moved out of its name into the "gomaxprocs"
// configuration key, where a "gomaxprocs:" line would put it, so that a
// go test file and a file with that line name benchmarks alike. Values
// keep benchfmt's tidied units (sec/op for ns/op, with values in seconds);
// Written gives a value back as the program printed it.
package benchdata

import (
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strings"

	"golang.org/x/perf/benchfmt"
	"golang.org/x/perf/benchmath"
	"golang.org/x/perf/benchproc"
)

// Set is what was read from one file.
type Set struct {
	Path    string
	Units   benchfmt.UnitMetadataMap
	Samples []*Sample // in the order first seen
	// Keys lists each configuration key's distinct values, in the order
	// seen; KeyOrder the keys in the order first seen.
	Keys     map[string][]string
	KeyOrder []string
	// Malformed holds the lines benchfmt could not read ("file:line:
	// message"); the rest of the file is still read.
	Malformed []string
	// Results counts the benchmark lines read (after the filter).
	Results int
	// Raw holds those lines' results, in order, for benchproc projections
	// (several files read together carry benchfmt.Files' ".file" key).
	Raw []*benchfmt.Result

	index map[string]*Sample
}

// Sample is one benchmark's values in one unit under one configuration.
type Sample struct {
	Config Config
	Name   string // without "Benchmark" and without the -N suffix
	Unit   string
	Values []float64
	// Iters is the iteration count of each line, in the order of Values.
	Iters []int
}

// Config is a result's configuration: its file keys plus gomaxprocs, in
// the order they were given.
type Config []KV

// KV is one configuration pair.
type KV struct{ Key, Value string }

// Get returns the value of key, or "".
func (c Config) Get(key string) string {
	for _, kv := range c {
		if kv.Key == key {
			return kv.Value
		}
	}
	return ""
}

// Project returns the values of keys, joined: the key of a group.
func (c Config) Project(keys []string) string {
	var b strings.Builder
	for i, k := range keys {
		if i > 0 {
			b.WriteByte('\x00')
		}
		b.WriteString(c.Get(k))
	}
	return b.String()
}

// String formats the configuration as "k=v k=v".
func (c Config) String() string {
	parts := make([]string, len(c))
	for i, kv := range c {
		parts[i] = kv.Key + "=" + kv.Value
	}
	return strings.Join(parts, " ")
}

// ErrNoResults is returned, wrapped, for a file with no benchmark lines.
var ErrNoResults = errors.New("no benchmark results")

// ReadFile reads path; filter, when not nil, keeps only the results and
// units it matches. A file with malformed lines is still read; see
// Set.Malformed. It fails when the file cannot be read or holds no
// benchmark result.
func ReadFile(path string, filter *benchproc.Filter) (*Set, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return Read(f, path, filter)
}

// Read reads results from r, named path in messages.
func Read(r io.Reader, path string, filter *benchproc.Filter) (*Set, error) {
	br := benchfmt.NewReader(r, path)
	return read(br, path, filter)
}

// ReadFiles reads paths as one stream, as benchfmt.Files does: each
// result carries its file in the ".file" key, and each file's
// configuration starts afresh.
func ReadFiles(paths []string, filter *benchproc.Filter) (*Set, error) {
	files := &benchfmt.Files{Paths: paths}
	return read(files, strings.Join(paths, ", "), filter)
}

// scanner is what benchfmt.Reader and benchfmt.Files have in common.
type scanner interface {
	Scan() bool
	Result() benchfmt.Record
	Err() error
}

func read(br scanner, path string, filter *benchproc.Filter) (*Set, error) {
	s := &Set{Path: path, Units: benchfmt.UnitMetadataMap{}, Keys: map[string][]string{}, index: map[string]*Sample{}}
	for br.Scan() {
		switch rec := br.Result().(type) {
		case *benchfmt.SyntaxError:
			s.Malformed = append(s.Malformed, rec.Error())
		case *benchfmt.UnitMetadata:
			s.Units[rec.UnitMetadataKey] = rec
		case *benchfmt.Result:
			if filter != nil {
				if ok, _ := filter.Apply(rec); !ok {
					continue
				}
			}
			if bad := nonFinite(rec); bad != "" {
				s.Malformed = append(s.Malformed, bad)
				continue
			}
			s.Raw = append(s.Raw, rec.Clone())
			s.add(rec)
		}
	}
	if err := br.Err(); err != nil {
		return s, fmt.Errorf("%s: %w", path, err)
	}
	if s.Results == 0 {
		what := ErrNoResults
		if filter != nil {
			return s, fmt.Errorf("%s: %w matching the filter", path, what)
		}
		return s, fmt.Errorf("%s: %w", path, what)
	}
	return s, nil
}

// nonFinite describes rec's first value that is not a finite number, as
// a malformed line ("" when every value is finite). Such a line is left
// out whole: no statistic is defined on it, and the U test of a sample
// holding NaN does not return.
func nonFinite(rec *benchfmt.Result) string {
	for _, v := range rec.Values {
		if math.IsNaN(v.Value) || math.IsInf(v.Value, 0) {
			file, line := rec.Pos()
			return fmt.Sprintf("%s:%d: %s: %v %s is not a finite number", file, line, rec.Name, v.Value, v.Unit)
		}
	}
	return ""
}

// SplitName returns a benchmark's name without its -N suffix, and N ("" when
// there is none).
func SplitName(full string) (name, procs string) {
	_, parts := benchfmt.Name(full).Parts()
	if len(parts) > 0 {
		if last := parts[len(parts)-1]; len(last) > 0 && last[0] == '-' {
			return full[:len(full)-len(last)], string(last[1:])
		}
	}
	return full, ""
}

func (s *Set) add(res *benchfmt.Result) {
	s.Results++
	name, procs := SplitName(string(res.Name))
	cfg := make(Config, 0, len(res.Config)+1)
	for _, c := range res.Config {
		if strings.HasPrefix(c.Key, ".") { // benchfmt.Files' .file and the like
			continue
		}
		cfg = append(cfg, KV{c.Key, string(c.Value)})
	}
	if procs != "" && cfg.Get("gomaxprocs") == "" {
		cfg = append(cfg, KV{"gomaxprocs", procs})
	}
	for _, kv := range cfg {
		vals, seen := s.Keys[kv.Key]
		if !seen {
			s.KeyOrder = append(s.KeyOrder, kv.Key)
		}
		if !slices.Contains(vals, kv.Value) {
			s.Keys[kv.Key] = append(vals, kv.Value)
		}
	}
	cfgID := cfg.String()
	for _, v := range res.Values {
		k := cfgID + "\x00" + name + "\x00" + v.Unit
		smp := s.index[k]
		if smp == nil {
			smp = &Sample{Config: cfg, Name: name, Unit: v.Unit}
			s.index[k] = smp
			s.Samples = append(s.Samples, smp)
		}
		smp.Values = append(smp.Values, v.Value)
		smp.Iters = append(smp.Iters, res.Iters)
	}
}

// Exact reports whether unit is exact by nature in this file: allocs/op
// and B/op, which count, and units whose metadata says assume=exact (the
// instruction gate's counts). Their spread is the work done, not the
// machine's noise.
func (s *Set) Exact(unit string) bool {
	return ExactUnit(unit, s.Units)
}

// ExactUnit reports whether unit is exact by nature under the unit
// metadata units (see Set.Exact).
func ExactUnit(unit string, units benchfmt.UnitMetadataMap) bool {
	return unit == "allocs/op" || unit == "B/op" || units.GetAssumption(unit) == benchmath.AssumeExact
}

// Better returns +1 when higher values of unit are better, -1 when lower
// are (the default for units without metadata, as for time and memory).
func (s *Set) Better(unit string) int {
	if s.Units.GetBetter(unit) > 0 {
		return 1
	}
	return -1
}
