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
// writes one set of costs for all threads, but it keeps a call stack
// and a running cost per thread, so sysmon's whole cost in a window is
// what its blocks of the output hold: the lines of runtime.sysmon itself
// and the inclusive costs of the calls it made (usleep, nanotime,
// retake and what they call), including the call in progress when the
// window opened. A window's count, and a whole process's, leave them out.
//
// --separate-threads=yes is no help: callgrind's DumpStatsAt and
// ZeroStats client requests then dump and zero the calling thread
// alone, and a goroutine can move to another thread within a window
// (sysmon takes the P from a system call that lasts a tick and hands it
// to another M), so the benchmark's own work would be lost or counted
// twice.
const SysmonFunc = "runtime.sysmon"

// funcCost sums the costs of fn's blocks in a callgrind output file,
// its numbered instances' too: their own cost lines and the inclusive
// costs of their calls, but those of one instance by another, whose cost
// the callee's blocks already hold. Names may be
// compressed ("fn=(12) runtime.sysmon", later "fn=(12)"); ids carries the
// names of the ids seen so far, read and updated, since a file may refer
// to an id an earlier file of the process named.
func funcCost(text, fn string, ids map[string]string) (Counts, error) {
	return sumCosts(text, ids, func(l costLine) bool {
		return instance(l.fn, fn) && (l.callee == "" || !instance(l.callee, fn))
	})
}

// costLine is where a cost line of a callgrind output file stands: the
// function whose block holds it, and for a call's inclusive cost the
// function called ("" for the block's own line).
type costLine struct{ fn, callee string }

// sumCosts sums the cost lines of text that take says to take.
func sumCosts(text string, ids map[string]string, take func(costLine) bool) (Counts, error) {
	var events []string
	npos := 1
	var sum []float64
	var at costLine
	call := false // the next cost line is a call's
	sc := bufio.NewScanner(strings.NewReader(text))
	sc.Buffer(make([]byte, 1<<16), 1<<24)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case line == "":
		case strings.HasPrefix(line, "events:"):
			events = strings.Fields(strings.TrimPrefix(line, "events:"))
			sum = make([]float64, len(events))
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
			if !take(l) {
				break
			}
			if sum == nil {
				return Counts{}, fmt.Errorf("cost line before the events line: %q", line)
			}
			if err := addCost(sum, strings.Fields(line), npos); err != nil {
				return Counts{}, err
			}
		}
	}
	if err := sc.Err(); err != nil {
		return Counts{}, err
	}
	var c Counts
	for i, name := range events {
		if p := eventFields(&c)[name]; p != nil {
			*p = sum[i]
		}
	}
	return c, nil
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
