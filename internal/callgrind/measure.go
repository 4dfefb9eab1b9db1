package callgrind

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/loopbench/loopbench/internal/benchdata"
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
}

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
	Err           error
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
// whose repeats disagree up to MaxRepeat, with Jobs processes at once,
// and returns the results in the tasks' order. A task whose process
// failed has Err set; ctx's end stops what is left.
func (v Valgrind) Measure(ctx context.Context, tasks []Task, o Options, progress func(done, total int)) []Result {
	return measure(ctx, v.process(o.Tmp), tasks, o, progress)
}

// measure is Measure with count counting each process.
func measure(ctx context.Context, count func(context.Context, []Task, int) (map[string]Counts, map[string]string, error), tasks []Task, o Options, progress func(done, total int)) []Result {
	m := &measurement{count: count, tasks: tasks, o: o, progress: progress,
		counts: make([][][2]Counts, len(tasks)), lines: make([][]string, len(tasks)), errs: make([]error, len(tasks))}
	all := make([]int, len(tasks))
	for t := range all {
		all[t] = t
	}
	m.round(ctx, all, o.Repeat)
	for r := o.Repeat; r < o.MaxRepeat && ctx.Err() == nil; r++ {
		redo := m.disagreeing()
		if len(redo) == 0 {
			break
		}
		m.round(ctx, redo, 1)
	}
	out := make([]Result, len(tasks))
	for t, task := range tasks {
		out[t] = result(task, m.counts[t], m.lines[t], m.errs[t], o)
		if out[t].Err == nil && ctx.Err() != nil && len(out[t].PerOp) == 0 {
			out[t].Err = ctx.Err()
		}
	}
	return out
}

// disagreeing returns the tasks of every benchmark whose repeats disagree
// on some side, on every side.
func (m *measurement) disagreeing() []int {
	names := map[string]bool{}
	for t, task := range m.tasks {
		if r := result(task, m.counts[t], m.lines[t], m.errs[t], m.o); r.Err == nil && !r.Deterministic {
			names[task.Name] = true
		}
	}
	var redo []int
	for t, task := range m.tasks {
		if names[task.Name] && m.errs[t] == nil {
			redo = append(redo, t)
		}
	}
	return redo
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
	sum := 0.0
	for _, x := range xs {
		sum += x
	}
	mean := sum / float64(len(xs))
	if mean == 0 {
		return 0
	}
	return (slices.Max(xs) - slices.Min(xs)) / abs(mean)
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
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
