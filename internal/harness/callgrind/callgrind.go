// Package callgrind counts what a Go benchmark executes under valgrind's
// callgrind: instructions, the cache simulation's misses and system
// calls, per operation. Counts do not move with the machine's load, so a
// gate on them decides changes of a percent on a shared runner where wall
// time moves 10-40 %.
//
// Benchmarks run under
//
//	valgrind --tool=callgrind --cache-sim=yes --collect-systime=nsec
//	         --I1=32768,8,64 --D1=32768,8,64 --LL=8388608,16,64
//
// (fixed simulated caches, so est-cycles compare between runners) with
// GOMAXPROCS=1 GOGC=off and GODEBUG as Env sets it (callgrind asserts on
// Go's preemption signal, valgrind does not decode RDTSCP, and math/rand's
// global source is seeded alike; one P and no collector keep the
// process's path the same run to run). Two methods:
//
//   - Windows, for a binary whose testing package brackets each
//     benchmark's timed loop with client requests, patched by the gate's
//     overlay (package overlay, HasWindows): callgrind starts with
//     instrumentation off (--instr-atstart=no), the testing package
//     counts only what the benchmark's timer times and dumps it under the
//     benchmark's name and N; per op is the window's count over N. Init,
//     setup and the b.N = 1 pass run uninstrumented, and several
//     benchmarks of one N share a process, one dump each.
//   - The difference of two processes, for a binary without windows (a
//     toolchain the overlay does not fit): a process per benchmark at two iteration counts, per op
//     the difference of their counts over the difference of the counts,
//     so the process's start, the setup and the b.N = 1 run cancel out.
//
// Repeats that disagree are counted again, up to Options.MaxRepeat.
package callgrind

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
)

// ErrNoInstructions is Parse's error for an output that counted no
// instruction: a window dump with nothing counted since the last one.
var ErrNoInstructions = errors.New("callgrind output without instruction counts")

// Counts are the events of one process, or per operation.
type Counts struct {
	Ir, Dr, Dw       float64 // instructions, data reads, data writes
	I1mr, D1mr, D1mw float64 // first-level misses: instruction, read, write
	ILmr, DLmr, DLmw float64 // last-level misses
	SysCount         float64 // system calls
}

// EstCycles estimates cycles from the cache simulation as iai-callgrind
// does: an L1 hit costs 1, a last-level hit 5, a miss to memory 35. It
// catches part of a change's memory effects that instructions alone miss;
// it is a model of a cache, not this machine's.
func (c Counts) EstCycles() float64 {
	ram := c.ILmr + c.DLmr + c.DLmw
	l1miss := c.I1mr + c.D1mr + c.D1mw
	l1hit := c.Ir + c.Dr + c.Dw - l1miss
	return l1hit + 5*(l1miss-ram) + 35*ram
}

// PerOp is (c - base) / ops: the counts of ops operations.
func (c Counts) PerOp(base Counts, ops int) Counts {
	f := func(a, b float64) float64 { return (a - b) / float64(ops) }
	return Counts{f(c.Ir, base.Ir), f(c.Dr, base.Dr), f(c.Dw, base.Dw), f(c.I1mr, base.I1mr), f(c.D1mr, base.D1mr),
		f(c.D1mw, base.D1mw), f(c.ILmr, base.ILmr), f(c.DLmr, base.DLmr), f(c.DLmw, base.DLmw), f(c.SysCount, base.SysCount)}
}

// add is c + d.
func (c Counts) add(d Counts) Counts {
	return Counts{c.Ir + d.Ir, c.Dr + d.Dr, c.Dw + d.Dw, c.I1mr + d.I1mr, c.D1mr + d.D1mr, c.D1mw + d.D1mw,
		c.ILmr + d.ILmr, c.DLmr + d.DLmr, c.DLmw + d.DLmw, c.SysCount + d.SysCount}
}

// Parse reads a callgrind output file's event names and its summary (the
// whole run's totals; the "totals:" line when there is no summary).
func Parse(r io.Reader) (Counts, error) { return parse(r, false) }

// parse reads the counts of the summary line, or of the totals line
// when dump is set: a dump's summary line is 0 when the counts were
// zeroed since the start, its totals line holds what it counted.
func parse(r io.Reader, dump bool) (Counts, error) {
	var events, summary, totals []string
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<16), 1<<24)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "events:"):
			events = strings.Fields(strings.TrimPrefix(line, "events:"))
		case strings.HasPrefix(line, "summary:"):
			summary = strings.Fields(strings.TrimPrefix(line, "summary:"))
		case strings.HasPrefix(line, "totals:"):
			totals = strings.Fields(strings.TrimPrefix(line, "totals:"))
		}
	}
	if err := sc.Err(); err != nil {
		return Counts{}, err
	}
	if summary == nil || (dump && totals != nil) {
		summary = totals
	}
	if events == nil || summary == nil {
		return Counts{}, fmt.Errorf("not a callgrind output: no events or summary line")
	}
	var c Counts
	fields := eventFields(&c)
	for i, name := range events {
		if p := fields[name]; p != nil && i < len(summary) {
			v, err := strconv.ParseFloat(summary[i], 64)
			if err != nil {
				return Counts{}, fmt.Errorf("summary %s: %q: %v", name, summary[i], err)
			}
			if !(v >= 0) || math.IsInf(v, 0) {
				return Counts{}, fmt.Errorf("summary %s: %q is not a count", name, summary[i])
			}
			*p = v
		}
	}
	if c.Ir == 0 {
		return Counts{}, fmt.Errorf("%w (events: %s)", ErrNoInstructions, strings.Join(events, " "))
	}
	return c, nil
}

// eventFields maps callgrind's event names to c's fields.
func eventFields(c *Counts) map[string]*float64 {
	return map[string]*float64{"Ir": &c.Ir, "Dr": &c.Dr, "Dw": &c.Dw, "I1mr": &c.I1mr, "D1mr": &c.D1mr, "D1mw": &c.D1mw,
		"ILmr": &c.ILmr, "DLmr": &c.DLmr, "DLmw": &c.DLmw, "sysCount": &c.SysCount}
}
