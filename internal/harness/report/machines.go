package report

import (
	"fmt"
	"slices"
	"strings"

	"golang.org/x/perf/benchfmt"
)

// Machine is one machine of a report that sets several side by side: its
// label (the column's name) and what its runs recorded of it.
type Machine struct {
	Label string
	Desc  string // "Intel(R) Xeon(R) Processor, 2 cores, 7.8 GiB, kernel 6.18.44, go1.26.8, GOMAXPROCS 2, host vm-a"
	Files []string
}

// machines sets rep.Machines: one per value of MachineKey, in the order
// the inputs give them, described by the MachineKeys of their first
// result.
func (rep *Report) machines(results []*benchfmt.Result) {
	byLabel := map[string]*Machine{}
	for _, r := range results {
		label := r.GetConfig(MachineKey)
		if label == "" {
			continue
		}
		m := byLabel[label]
		if m == nil {
			m = &Machine{Label: label, Desc: describe(r)}
			byLabel[label] = m
			rep.Machines = append(rep.Machines, m)
		}
		if f := r.GetConfig(".file"); f != "" && !slices.Contains(m.Files, f) {
			m.Files = append(m.Files, f)
		}
	}
}

// describe is a result's machine in words.
func describe(r *benchfmt.Result) string {
	var parts []string
	add := func(key, format string) {
		if v := r.GetConfig(key); v != "" {
			parts = append(parts, fmt.Sprintf(format, v))
		}
	}
	add("cpu", "%s")
	add("machine-cores", "%s cores")
	add("machine-memory", "%s")
	add("kernel", "kernel %s")
	add("go", "%s")
	add("gomaxprocs", "GOMAXPROCS %s")
	for _, k := range []string{"machine-host", "host"} {
		if h := r.GetConfig(k); h != "" && h != r.GetConfig(MachineKey) {
			parts = append(parts, "host "+h)
		}
	}
	return strings.Join(parts, ", ")
}

// String is the machine as the report's head lists it.
func (m *Machine) String() string {
	s := m.Label + ": " + m.Desc
	if len(m.Files) > 0 {
		s += " (" + strings.Join(m.Files, ", ") + ")"
	}
	return s
}
