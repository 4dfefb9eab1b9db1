package callgrind

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// Dump is one callgrind output file of a process: the counts since the
// last dump (or the start) and why it was written: the string a
// DumpStatsAt client request gave, or "" for the dump at the program's
// end.
type Dump struct {
	Reason string
	Counts Counts
	Seq    int // the file's number: dumps are numbered in order from 1; 0 is the end's
}

// clientPrefix starts the desc line of a dump a client request wrote.
const clientPrefix = "desc: Trigger: Client Request: "

// ReadDumps reads the output files of a process run with
// --callgrind-out-file=out: out.1, out.2, ... for the dumps client
// requests asked for, in order, then out itself, the counts left at the
// end. A file without instruction counts (nothing counted since the last
// dump) is read with zero counts.
func ReadDumps(out string) ([]Dump, error) {
	names, err := filepath.Glob(out + ".*")
	if err != nil {
		return nil, err
	}
	var dumps []Dump
	for _, name := range names {
		seq, err := strconv.Atoi(strings.TrimPrefix(name, out+"."))
		if err != nil || seq < 1 {
			continue
		}
		d, err := readDump(name)
		if err != nil {
			return nil, err
		}
		d.Seq = seq
		dumps = append(dumps, d)
	}
	sort.Slice(dumps, func(i, j int) bool { return dumps[i].Seq < dumps[j].Seq })
	if _, err := os.Stat(out); err == nil {
		d, err := readDump(out)
		if err != nil {
			return nil, err
		}
		dumps = append(dumps, d)
	}
	return dumps, nil
}

// readDump reads one output file's reason and counts.
func readDump(name string) (Dump, error) {
	b, err := os.ReadFile(name)
	if err != nil {
		return Dump{}, err
	}
	var d Dump
	for _, line := range strings.Split(string(b), "\n") {
		if r, ok := strings.CutPrefix(line, clientPrefix); ok {
			d.Reason = r
		}
		if strings.HasPrefix(line, "events:") {
			break // the header's desc lines are above
		}
	}
	d.Counts, err = parse(strings.NewReader(string(b)), true)
	if err != nil && !strings.Contains(err.Error(), "without instruction counts") {
		return Dump{}, fmt.Errorf("%s: %v", filepath.Base(name), err)
	}
	return d, nil
}
