package bench

import (
	"flag"
	"runtime"
	"strconv"
	"strings"

	"github.com/loopbench/loopbench/internal/valgrind"
)

// Counted runs run(t, n) and, when the process runs under callgrind
// (started with --instr-atstart=no) asked to count windows
// (valgrind.WindowsEnv) and n is the pass to count (countedPass),
// counts exactly what t times: instrumentation runs from the start of run up to StopTimer and
// again from StartTimer, ResetTimer zeroes the counts, and at the end the
// counts are dumped under valgrind.WindowReason(name, n). Setup before run and
// testing's b.N = 1 pass run uninstrumented and are not counted. Natively
// it is run(t, n).
//
// A counted process samples no allocations for the memory profile
// (runtime.MemProfileRate = 0): the sampling interval is random, so each
// process would walk the stacks of a different number of allocations (a
// 20,000-operation window of Timers churn-random at 10⁴ moved by 0.5 %,
// all of it in the runtime's traceback). Each window also starts with
// HeadroomBytes of free heap.
func Counted(t Timer, name string, n int, run func(Timer, int) error) error {
	if !valgrind.Windows() || !countedPass(n) {
		return run(t, n)
	}
	w := &window{Timer: t, on: true}
	runtime.MemProfileRate = 0
	heapHeadroom()
	valgrind.ZeroStats()
	valgrind.StartInstrumentation()
	err := run(w, n)
	if w.on {
		valgrind.StopInstrumentation()
	}
	valgrind.DumpStatsAt(valgrind.WindowReason(name, n))
	return err
}

// countedPass says a pass of n iterations is the one to count: the pass
// at the count -test.benchtime=Nx asks for (for N = 1 go test's only
// pass, an operation long enough to be a window by itself), else any
// pass but testing's first, of one iteration.
func countedPass(n int) bool {
	if want, ok := benchtimeCount(); ok {
		return n == want
	}
	return n > 1
}

// benchtimeCount is N of -test.benchtime=Nx, when the process has that
// flag set so.
func benchtimeCount() (int, bool) {
	f := flag.Lookup("test.benchtime")
	if f == nil {
		return 0, false
	}
	x, ok := strings.CutSuffix(f.Value.String(), "x")
	n, err := strconv.Atoi(x)
	return n, ok && err == nil && n > 0
}

// window is a Timer that also switches callgrind's instrumentation, as
// testing.B switches its timer: on at the start, ResetTimer zeroes.
type window struct {
	Timer
	on bool
}

// ResetTimer makes heap headroom uncounted, resets the timer, then zeroes
// the counts.
func (w *window) ResetTimer() {
	if w.on {
		valgrind.StopInstrumentation()
	}
	heapHeadroom()
	if w.on {
		valgrind.StartInstrumentation()
	}
	w.Timer.ResetTimer()
	valgrind.ZeroStats()
}

// HeadroomBytes is the free heap a window starts with. With GOGC=off the
// heap only grows, and whether a window's allocations find free pages or
// must first map more (mheap.grow, and a page-allocator search of the
// whole summary before it: about 90,000 instructions, measured) depends on
// what ran before: the setup, earlier benchmarks in the process, the
// runtime's own allocations, which follow time. One such growth moved a
// 10.7 million-instruction window by 0.8 %. So before counting, the heap
// is grown by HeadroomBytes and given back to the page heap (an
// allocation never written, then a collection), and a window that
// allocates less finds its pages without growing.
const HeadroomBytes = 64 << 20

// heapHeadroom grows the heap by HeadroomBytes and frees it again.
func heapHeadroom() {
	runtime.KeepAlive(make([]byte, HeadroomBytes))
	runtime.GC()
}

// StartTimer starts the timer, then counting: the timer's own work
// (testing.B reads the memory statistics, stopping the world) is not
// counted.
func (w *window) StartTimer() {
	w.Timer.StartTimer()
	if !w.on {
		valgrind.StartInstrumentation()
		w.on = true
	}
}

// StopTimer stops counting, then the timer.
func (w *window) StopTimer() {
	if w.on {
		valgrind.StopInstrumentation()
		w.on = false
	}
	w.Timer.StopTimer()
}
