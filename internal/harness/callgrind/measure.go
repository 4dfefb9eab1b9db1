package callgrind

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/loopbench/loopbench/internal/measure/benchdata"
	"github.com/montanaflynn/stats"
)

// Options of a measurement.
type Options struct {
	// Repeat is the processes per count at first: repeats that disagree
	// show a benchmark whose count is not a property of the code alone.
	Repeat int
	// MaxRepeat is the most repeats of a benchmark whose repeats disagree
	// (on either side): it is counted once more, on both sides, until they
	// agree or it has MaxRepeat, and judged on all of them.
	MaxRepeat int
	Jobs      int // processes at once
	// MaxSpread is the largest relative spread of the repeats' per-op
	// instructions and est-cycles of a deterministic benchmark.
	MaxSpread float64
	Tmp       string // for callgrind's output files
	// WindowBenchtime, when set, is the native benchtime (a duration
	// or Nx) whose iterations size window counts, instead of the one
	// that sizes the difference of two processes: a window's count per
	// op repeats with far fewer operations than a difference needs.
	WindowBenchtime string
	// Widen, when above 1, is how many times more iterations a window
	// gets when its benchmark's repeats still disagree after MaxRepeat:
	// it is counted again on every side at Widen times its iterations
	// (Repeat times, re-counted up to MaxRepeat), and those counts
	// replace the narrower ones. What time moves in a window (the Go
	// runtime's preemptions, ~1,000 instructions each) comes a few times
	// more or less per window, so a window ten times longer carries a
	// tenth of that difference per op. Only windows whose widened count
	// stays under MaxWidened are widened. Off for a side that must keep
	// a saved baseline's iteration counts.
	Widen int
	// Undecided, when set, also widens a benchmark whose repeats agree on
	// each side but whose sides the verdict could not tell apart: it gets
	// the per-op counts of each of the benchmark's tasks, in the tasks'
	// order (base, then head).
	Undecided func(sides [][]Counts) bool
}

// MaxWidened is the most instructions a widened window may count: a
// benchmark whose window would count more is judged at its own count.
// One whose repeats agree on each side (widened because Undecided said
// so) is widened up to MaxWidenedAgreeing only: sides that each repeat
// but differ by about the minimum effect are mostly a real change of
// that size, which no window width decides, and wide windows of large
// operations cost minutes.
const (
	MaxWidened         = 5e8
	MaxWidenedAgreeing = 5e7
)

// Task is a benchmark of a binary to measure: by its window (Iters[0] is
// 0 and the binary has windows) or by the difference of two processes.
type Task struct {
	Binary Binary
	Name   string
	// Iters are the two iteration counts of the difference, 2 <= Iters[0]
	// < Iters[1], per op over their difference; or 0 and the window's
	// count, per op over Iters[1].
	Iters [2]int
}

// window says the task is counted by its window.
func (t Task) window() bool { return t.Binary.Window && t.Iters[0] == 0 }

// IterCounts returns the iteration counts for a benchmark that ran n
// iterations natively in the listing's benchtime: n/10 (at least 2) and
// that plus n, so the difference is n operations.
func IterCounts(n int) [2]int {
	a := max(2, n/10)
	return [2]int{a, a + max(n, 1)}
}

// Result is a task's per-operation counts.
type Result struct {
	Task
	PerOp                   []Counts // one per repeat
	BytesPerOp, AllocsPerOp float64  // from the benchmark's lines at the larger count
	// MemoryAgree says every repeat's line gave the same B/op and
	// allocs/op: the runtime's own allocations (a new thread when a system
	// call blocks, say) depend on time, so memory is judged only where it
	// repeats.
	MemoryAgree bool
	// Spread is the largest of the per-op instructions' and est-cycles'
	// (max-min)/mean over the repeats.
	Spread        float64
	Deterministic bool // Spread <= MaxSpread
	// SyscallsAgree says the repeats' syscalls per op agree within
	// MaxSpread: around a blocking system call the runtime's path depends
	// on time, so syscalls/op is judged only where it repeats.
	SyscallsAgree bool
	// Widened says the benchmark's repeats disagreed after MaxRepeat, or
	// Options.Undecided found its sides undecided, and it was counted
	// again at Options.Widen times its window's iterations (Iters holds
	// them), on every side.
	Widened bool
	Err     error
}

// Mean is the mean of the repeats' per-op counts.
func (r *Result) Mean() Counts {
	var sum Counts
	for _, c := range r.PerOp {
		sum = sum.add(c)
	}
	return sum.PerOp(Counts{}, len(r.PerOp))
}

// Measure counts every task Repeat times, then re-counts the benchmarks
// whose repeats disagree up to MaxRepeat, then counts those still
// disagreeing or undecided at wider windows (Options.Widen), with Jobs
// processes at once, and returns the results in the tasks' order. A task whose process
// failed has Err set; ctx's end stops what is left.
func (v Valgrind) Measure(ctx context.Context, tasks []Task, o Options, progress func(done, total int)) []Result {
	return measure(ctx, v.process(o.Tmp), tasks, o, progress)
}

// measure is Measure with count counting each process.
func measure(ctx context.Context, count func(context.Context, []Task, int) (map[string]Counts, map[string]string, error), tasks []Task, o Options, progress func(done, total int)) []Result {
	m := &measurement{count: count, tasks: slices.Clone(tasks), o: o, progress: progress,
		counts: make([][][2]Counts, len(tasks)), lines: make([][]string, len(tasks)), errs: make([]error, len(tasks)),
		widened: make([]bool, len(tasks))}
	all := m.all()
	m.round(ctx, all, o.Repeat)
	m.recount(ctx, all)
	if wide := m.toWiden(); len(wide) > 0 && ctx.Err() == nil {
		m.widen(ctx, wide)
	}
	out := make([]Result, len(tasks))
	for t, task := range m.tasks {
		out[t] = result(task, m.counts[t], m.lines[t], m.errs[t], o)
		out[t].Widened = m.widened[t]
		if out[t].Err == nil && ctx.Err() != nil && len(out[t].PerOp) == 0 {
			out[t].Err = ctx.Err()
		}
	}
	return out
}

// recount counts the benchmarks of ts whose repeats disagree once more
// on every side, until they agree or have MaxRepeat repeats.
func (m *measurement) recount(ctx context.Context, ts []int) {
	for r := m.o.Repeat; r < m.o.MaxRepeat && ctx.Err() == nil; r++ {
		redo := m.disagreeing(ts)
		if len(redo) == 0 {
			return
		}
		m.round(ctx, redo, 1)
	}
}

// disagreeing returns the tasks among ts of every benchmark whose repeats
// disagree on some side, on every side.
func (m *measurement) disagreeing(ts []int) []int {
	names := map[string]bool{}
	for _, t := range ts {
		if r := result(m.tasks[t], m.counts[t], m.lines[t], m.errs[t], m.o); r.Err == nil && !r.Deterministic {
			names[m.tasks[t].Name] = true
		}
	}
	var redo []int
	for _, t := range ts {
		if names[m.tasks[t].Name] && m.errs[t] == nil {
			redo = append(redo, t)
		}
	}
	return redo
}

// toWiden returns the tasks of the benchmarks to count at Widen times
// their windows' iterations (widens), on every side: none when Widen is
// off.
func (m *measurement) toWiden() []int {
	if m.o.Widen <= 1 {
		return nil
	}
	rs := make([]Result, len(m.tasks))
	byName := map[string][]int{}
	for t, task := range m.tasks {
		rs[t] = result(task, m.counts[t], m.lines[t], m.errs[t], m.o)
		byName[task.Name] = append(byName[task.Name], t)
	}
	var wide []int
	for _, ts := range byName {
		if m.widens(rs, ts) {
			wide = append(wide, ts...)
		}
	}
	slices.Sort(wide)
	return wide
}

// widens says a benchmark (its tasks ts, their results in rs) is to be
// widened: its repeats still disagree on some side, or they agree and
// Undecided finds its sides undecided; every task is a window that
// counted, and none would count more than MaxWidened (MaxWidenedAgreeing
// when the repeats agree) once widened.
func (m *measurement) widens(rs []Result, ts []int) bool {
	disagree := false
	sides := make([][]Counts, len(ts))
	for i, t := range ts {
		if rs[t].Err != nil || !m.tasks[t].window() {
			return false
		}
		disagree = disagree || !rs[t].Deterministic
		sides[i] = rs[t].PerOp
	}
	limit := float64(MaxWidened)
	if !disagree {
		if m.o.Undecided == nil || !m.o.Undecided(sides) {
			return false
		}
		limit = MaxWidenedAgreeing
	}
	for _, t := range ts {
		if rs[t].Mean().Ir*float64(m.tasks[t].Iters[1]*m.o.Widen) > limit {
			return false
		}
	}
	return true
}

// widen counts the tasks wide again at Widen times their windows'
// iterations, Repeat times and re-counted up to MaxRepeat, in place of
// their counts so far. Interrupted, it keeps the narrower counts: they
// are a whole measurement.
func (m *measurement) widen(ctx context.Context, wide []int) {
	type narrow struct {
		iters  [2]int
		counts [][2]Counts
		lines  []string
	}
	kept := make([]narrow, len(wide))
	for i, t := range wide {
		kept[i] = narrow{m.tasks[t].Iters, m.counts[t], m.lines[t]}
		m.tasks[t].Iters[1] *= m.o.Widen
		m.counts[t], m.lines[t], m.widened[t] = nil, nil, true
	}
	m.round(ctx, wide, m.o.Repeat)
	m.recount(ctx, wide)
	if ctx.Err() == nil {
		return
	}
	for i, t := range wide {
		m.tasks[t].Iters, m.counts[t], m.lines[t], m.widened[t] = kept[i].iters, kept[i].counts, kept[i].lines, false
		m.errs[t] = nil
	}
}

// all is every task's index.
func (m *measurement) all() []int {
	all := make([]int, len(m.tasks))
	for t := range all {
		all[t] = t
	}
	return all
}

// result is a task's per-op counts from its processes' counts.
func result(task Task, counts [][2]Counts, lines []string, err error, o Options) Result {
	r := Result{Task: task, Err: err}
	if err != nil {
		return r
	}
	if slices.Contains(lines, "") {
		r.Err = fmt.Errorf("%s: not measured", task.Name)
		return r
	}
	ops := task.Iters[1] - task.Iters[0]
	var irs, cycles, sys []float64
	for _, c := range counts {
		p := c[1].PerOp(c[0], ops)
		r.PerOp = append(r.PerOp, p)
		irs, cycles, sys = append(irs, p.Ir), append(cycles, p.EstCycles()), append(sys, p.SysCount)
	}
	r.Spread = max(spread(irs), spread(cycles))
	r.Deterministic = r.Spread <= o.MaxSpread
	r.SyscallsAgree = spread(sys) <= o.MaxSpread
	r.BytesPerOp, r.AllocsPerOp = memory(lines[0])
	r.MemoryAgree = true
	for _, l := range lines[1:] {
		if b, a := memory(l); b != r.BytesPerOp || a != r.AllocsPerOp {
			r.MemoryAgree = false
		}
	}
	return r
}

// spread is (max-min)/mean of xs.
func spread(xs []float64) float64 {
	if len(xs) < 2 {
		return 0
	}
	mean, _ := stats.Mean(xs)
	if mean == 0 {
		return 0
	}
	return (slices.Max(xs) - slices.Min(xs)) / math.Abs(mean)
}

// memory reads B/op and allocs/op from a benchmark's result line.
func memory(line string) (bytes, allocs float64) {
	s, _ := benchdata.Read(strings.NewReader(line+"\n"), "line", nil) // no result: zeros
	for _, res := range s.Raw {
		bytes, _ = res.Value("B/op")
		allocs, _ = res.Value("allocs/op")
	}
	return bytes, allocs
}
