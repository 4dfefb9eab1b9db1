package callgrind

import (
	"bufio"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// SysmonFunc is the function of the Go runtime's monitor thread. It runs
// on a thread of its own without a P, whatever GOMAXPROCS is, and wakes
// every 20 µs to 10 ms of wall time: a window that a loaded machine
// stretches holds more of it. Callgrind (without --separate-threads)
// writes one set of costs for all threads, but it keeps a call stack per
// thread, so sysmon's cost in a window is in its blocks of the output:
// the lines of runtime.sysmon itself and the inclusive costs of the calls
// it made (usleep, nanotime, retake and what they call). A window's
// count, and a whole process's, leave them out (costGraph.costOf).
//
// --separate-threads=yes is no help: callgrind's DumpStatsAt and
// ZeroStats client requests then dump and zero the calling thread
// alone, and a goroutine can move to another thread within a window
// (sysmon takes the P from a system call that lasts a tick and hands it
// to another M), so the benchmark's own work would be lost or counted
// twice.
const SysmonFunc = "runtime.sysmon"

// costLine is where a cost line of a callgrind output file stands: the
// function whose block holds it, and for a call's inclusive cost the
// function called ("" for the block's own line).
type costLine struct{ fn, callee string }

// scanCosts reads a callgrind output file's cost lines and calls visit
// with each one's place and counts (in the order of the events line it
// returns; visit must not keep the slice). Names may be compressed
// ("fn=(12) runtime.sysmon", later "fn=(12)"); ids carries the names of
// the ids seen so far, read and updated, since a file may refer to an id
// an earlier file of the process named.
func scanCosts(text string, ids map[string]string, visit func(costLine, []float64)) ([]string, error) {
	var events []string
	npos := 1
	var at costLine
	call := false // the next cost line is a call's
	var cost []float64
	sc := bufio.NewScanner(strings.NewReader(text))
	sc.Buffer(make([]byte, 1<<16), 1<<24)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case line == "":
		case strings.HasPrefix(line, "events:"):
			events = strings.Fields(strings.TrimPrefix(line, "events:"))
			cost = make([]float64, len(events))
		case strings.HasPrefix(line, "positions:"):
			npos = max(1, len(strings.Fields(strings.TrimPrefix(line, "positions:"))))
		case strings.HasPrefix(line, "fn="):
			at.fn = funcName(strings.TrimPrefix(line, "fn="), ids)
		case strings.HasPrefix(line, "cfn="), strings.HasPrefix(line, "cfni="):
			_, name, _ := strings.Cut(line, "=")
			at.callee = funcName(name, ids)
		case strings.HasPrefix(line, "calls="):
			call = true
		case isCostLine(line):
			l := costLine{fn: at.fn}
			if call {
				l.callee = at.callee
			}
			call = false
			if cost == nil {
				return nil, fmt.Errorf("cost line before the events line: %q", line)
			}
			clear(cost)
			if err := addCost(cost, strings.Fields(line), npos); err != nil {
				return nil, err
			}
			visit(l, cost)
		}
	}
	return events, sc.Err()
}

// addTo adds cost to sum, made as long as cost if it is shorter.
func addTo(sum, cost []float64) []float64 {
	if len(sum) < len(cost) {
		sum = append(sum, make([]float64, len(cost)-len(sum))...)
	}
	for i, v := range cost {
		sum[i] += v
	}
	return sum
}

// countsOf is the Counts of sum, whose entries are the named events'.
func countsOf(events []string, sum []float64) Counts {
	var c Counts
	for i, name := range events {
		if p := eventFields(&c)[name]; p != nil && i < len(sum) {
			*p = sum[i]
		}
	}
	return c
}

// instance says name is fn or one of callgrind's numbered instances of
// it ("runtime.sysmon'2": a call stack callgrind saw re-entered, as when
// instrumentation starts again while sysmon sleeps).
func instance(name, fn string) bool {
	base, _, _ := strings.Cut(name, "'")
	return base == fn
}

// funcName reads a function's name from what follows "fn=": "(id) name"
// names id, "(id)" refers to it, a bare name is itself.
func funcName(s string, ids map[string]string) string {
	if !strings.HasPrefix(s, "(") {
		return s
	}
	id, name, ok := strings.Cut(s, ")")
	id += ")"
	if !ok {
		return ""
	}
	if name = strings.TrimSpace(name); name != "" {
		ids[id] = name
		return name
	}
	return ids[id]
}

// isCostLine says line is a cost line: positions (absolute, +relative,
// -relative, or * for the same) then event counts.
func isCostLine(line string) bool {
	c := line[0]
	return c >= '0' && c <= '9' || c == '+' || c == '-' || c == '*'
}

// addCost adds a cost line's counts, after its npos positions, to sum.
func addCost(sum []float64, f []string, npos int) error {
	if len(f) < npos {
		return fmt.Errorf("cost line %q: fewer than %d positions", strings.Join(f, " "), npos)
	}
	for i, v := range f[npos:] {
		if i >= len(sum) {
			return fmt.Errorf("cost line %q: more counts than events", strings.Join(f, " "))
		}
		x, err := strconv.ParseUint(v, 10, 64)
		if err != nil {
			return fmt.Errorf("cost line %q: %q is not a count", strings.Join(f, " "), v)
		}
		sum[i] += float64(x)
		if math.IsInf(sum[i], 0) {
			return fmt.Errorf("cost line %q: counts overflow", strings.Join(f, " "))
		}
	}
	return nil
}

// minus is c - d, each count at least 0.
func (c Counts) minus(d Counts) Counts {
	f := func(a, b float64) float64 { return max(a-b, 0) }
	return Counts{f(c.Ir, d.Ir), f(c.Dr, d.Dr), f(c.Dw, d.Dw), f(c.I1mr, d.I1mr), f(c.D1mr, d.D1mr),
		f(c.D1mw, d.D1mw), f(c.ILmr, d.ILmr), f(c.DLmr, d.DLmr), f(c.DLmw, d.DLmw), f(c.SysCount, d.SysCount)}
}
