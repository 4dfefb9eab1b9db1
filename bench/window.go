package bench

import "github.com/loopbench/loopbench/internal/valgrind"

// Counted runs run(t, n) and, when the process runs under callgrind
// (started with --instr-atstart=no) asked to count windows
// (valgrind.WindowsEnv) and n > 1, counts exactly what t
// times: instrumentation runs from the start of run up to StopTimer and
// again from StartTimer, ResetTimer zeroes the counts, and at the end the
// counts are dumped under valgrind.WindowReason(name, n). Setup before run and
// testing's b.N = 1 pass run uninstrumented and are not counted. Natively
// it is run(t, n).
func Counted(t Timer, name string, n int, run func(Timer, int) error) error {
	if n <= 1 || !valgrind.Windows() {
		return run(t, n)
	}
	w := &window{Timer: t, on: true}
	valgrind.ZeroStats()
	valgrind.StartInstrumentation()
	err := run(w, n)
	if w.on {
		valgrind.StopInstrumentation()
	}
	valgrind.DumpStatsAt(valgrind.WindowReason(name, n))
	return err
}

// window is a Timer that also switches callgrind's instrumentation, as
// testing.B switches its timer: on at the start, ResetTimer zeroes.
type window struct {
	Timer
	on bool
}

// ResetTimer resets the timer, then zeroes the counts.
func (w *window) ResetTimer() {
	w.Timer.ResetTimer()
	valgrind.ZeroStats()
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
