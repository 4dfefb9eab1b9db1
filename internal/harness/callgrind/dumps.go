package callgrind

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
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
	// Counts are what the dump counted, without the runtime's monitor
	// thread (Sysmon); their system calls are Go code's (goSyscalls).
	Counts Counts
	// Sysmon is what the Go runtime's monitor thread ran in the dump's
	// time (SysmonFunc): left out of Counts.
	Sysmon Counts
	Seq    int // the file's number: dumps are numbered in order from 1; 0 is the end's
}

// clientPrefix starts the desc line of a dump a client request wrote.
const clientPrefix = "desc: Trigger: Client Request: "

// ReadDumps reads the output files of a process run with
// --callgrind-out-file=out: out.1, out.2, ... for the dumps client
// requests asked for, in order, then out itself, the counts left at the
// end. A file without instruction counts (nothing counted since the last
// dump) is read with zero counts. Each dump's counts leave the runtime's
// monitor thread out (Dump.Sysmon).
func ReadDumps(out string) ([]Dump, error) {
	names, err := filepath.Glob(out + ".*")
	if err != nil {
		return nil, err
	}
	seqs := map[string]int{}
	for _, name := range names {
		if seq, err := strconv.Atoi(strings.TrimPrefix(name, out+".")); err == nil && seq >= 1 {
			seqs[name] = seq
		}
	}
	names = slices.DeleteFunc(names, func(n string) bool { return seqs[n] == 0 })
	sort.Slice(names, func(i, j int) bool { return seqs[names[i]] < seqs[names[j]] })
	if _, err := os.Stat(out); err == nil {
		names = append(names, out)
	}
	var dumps []Dump
	ids := map[string]string{} // compressed function names, over the process's files in order
	for _, name := range names {
		b, err := os.ReadFile(name)
		if err != nil {
			return nil, err
		}
		d, err := parseDump(string(b), ids)
		if err != nil {
			return nil, fmt.Errorf("%s: %v", filepath.Base(name), err)
		}
		d.Seq = seqs[name]
		dumps = append(dumps, d)
	}
	return dumps, nil
}

// parseDump reads one output file's reason and counts, the monitor
// thread's left out; ids are the compressed function names seen so far.
func parseDump(text string, ids map[string]string) (Dump, error) {
	var d Dump
	for _, line := range strings.Split(text, "\n") {
		if r, ok := strings.CutPrefix(line, clientPrefix); ok {
			d.Reason = r
		}
		if strings.HasPrefix(line, "events:") {
			break // the header's desc lines are above
		}
	}
	total, err := parse(strings.NewReader(text), true)
	if err != nil && !errors.Is(err, ErrNoInstructions) {
		return Dump{}, err
	}
	d.Counts, d.Sysmon, err = withoutRuntime(total, text, ids)
	return d, err
}
