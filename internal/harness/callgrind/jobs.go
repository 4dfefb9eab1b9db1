package callgrind

import (
	"context"
	"slices"
	"sync"
)

// measurement holds the counts of Measure's tasks as they come in.
type measurement struct {
	count    func(context.Context, []Task, int) (map[string]Counts, map[string]string, error)
	tasks    []Task
	o        Options
	progress func(done, total int)
	counts   [][][2]Counts // per task and repeat: the two counts (a window's in [1])
	lines    [][]string    // per task and repeat: the result line
	errs     []error
	widened  []bool // per task: counted at Widen times its iterations
	mu       sync.Mutex
	done     int
	total    int
}

// job is one process: a window count of several tasks, or one count of
// a task's difference.
type job struct {
	tasks []int
	reps  []int // each task's repeat
	count int   // 0 or 1: which of Iters
}

// round counts the tasks ts reps more times.
func (m *measurement) round(ctx context.Context, ts []int, reps int) {
	var jobs []job
	for range reps {
		jobs = append(jobs, m.jobs(ts)...)
	}
	m.longestFirst(jobs)
	m.total += len(jobs)
	next := make(chan job)
	var wg sync.WaitGroup
	for range max(m.o.Jobs, 1) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range next {
				m.run(ctx, j)
			}
		}()
	}
	for _, j := range jobs {
		if ctx.Err() != nil {
			break
		}
		next <- j
	}
	close(next)
	wg.Wait()
}

// jobs makes one more repeat's processes of ts: the window tasks in
// groups of one binary and count (at most GroupSize, never one name
// twice: an A/A gate's two sides are one binary, and each side's count
// must come from a process of its own), the others two processes each.
func (m *measurement) jobs(ts []int) []job {
	var jobs []job
	open := map[[2]any]int{} // binary and count -> index of its open group
	for _, t := range ts {
		task := m.tasks[t]
		rep := len(m.counts[t])
		m.counts[t] = append(m.counts[t], [2]Counts{})
		m.lines[t] = append(m.lines[t], "")
		if !task.window() {
			jobs = append(jobs, job{[]int{t}, []int{rep}, 0}, job{[]int{t}, []int{rep}, 1})
			continue
		}
		key := [2]any{task.Binary.Path, task.Iters[1]}
		named := func(u int) bool { return m.tasks[u].Name == task.Name }
		if i, ok := open[key]; ok && len(jobs[i].tasks) < GroupSize && !slices.ContainsFunc(jobs[i].tasks, named) {
			jobs[i].tasks, jobs[i].reps = append(jobs[i].tasks, t), append(jobs[i].reps, rep)
			continue
		}
		open[key] = len(jobs)
		jobs = append(jobs, job{[]int{t}, []int{rep}, 1})
	}
	return jobs
}

// longestFirst moves the window processes at one iteration to the front,
// keeping the order otherwise: an operation that alone outlasts the
// benchtime makes these processes the longest (in a pull-request gate,
// 35 to 47 s of CPU against 1 to 20 for the others), and started last
// they would leave the other cores idle at the end.
func (m *measurement) longestFirst(jobs []job) {
	slices.SortStableFunc(jobs, func(a, b job) int {
		one := func(j job) bool { t := m.tasks[j.tasks[0]]; return t.window() && t.Iters[1] == 1 }
		switch {
		case one(a) && !one(b):
			return -1
		case one(b) && !one(a):
			return 1
		}
		return 0
	})
}

// process counts tasks (of one binary) in one process under callgrind:
// their windows at Iters[1], or the one task's difference count at
// Iters[count].
func (v Valgrind) process(tmp string) func(context.Context, []Task, int) (map[string]Counts, map[string]string, error) {
	return func(ctx context.Context, tasks []Task, count int) (map[string]Counts, map[string]string, error) {
		first := tasks[0]
		if first.window() {
			names := make([]string, len(tasks))
			for i, t := range tasks {
				names[i] = t.Name
			}
			type counted struct {
				counts map[string]Counts
				lines  map[string]string
			}
			r, err := retryEmpty(func() (counted, error) {
				c, l, err := v.countWindows(ctx, first.Binary, names, first.Iters[1], tmp)
				return counted{c, l}, err
			})
			return r.counts, r.lines, err
		}
		c, line, err := v.Count(ctx, first.Binary, first.Name, first.Iters[count], tmp)
		return map[string]Counts{first.Name: c}, map[string]string{first.Name: line}, err
	}
}

// run runs one job's process and records what it counted.
func (m *measurement) run(ctx context.Context, j job) {
	tasks := make([]Task, len(j.tasks))
	for i, t := range j.tasks {
		tasks[i] = m.tasks[t]
	}
	counts, lines, err := m.count(ctx, tasks, j.count)
	m.mu.Lock()
	defer m.mu.Unlock()
	for i, t := range j.tasks {
		name := m.tasks[t].Name
		m.counts[t][j.reps[i]][j.count] = counts[name]
		if err != nil && m.errs[t] == nil {
			m.errs[t] = err
		}
		if j.count == 1 {
			m.lines[t][j.reps[i]] = lines[name]
		}
	}
	m.done++
	if m.progress != nil {
		m.progress(m.done, m.total)
	}
}
