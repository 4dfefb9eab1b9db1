package bench

import (
	"strings"

	"github.com/loopbench/loopbench/internal/measure/valgrind"
)

// Reasons a case is not counted in callgrind windows (NotCountable).
const (
	notCountableRuntimeTimers = "not countable: Go's runtime timers follow the real clock, which no window holds still; judge it by wall time"
	notCountableRealWait      = "not countable: its work is a wait on the real clock; judge it by wall time"
)

// NotCountable says why case c is not counted in callgrind windows, or
// "" when it is. Go's runtime timers (impl=afterfunc and
// impl=afterfunc-reset) run on the runtime's own time-driven paths,
// which no virtual clock reaches, and Wakeup's work is the real wait:
// under callgrind, some 50 times slower by a varying amount, no two
// processes of them do the same work.
func NotCountable(c Case) string {
	switch {
	case c.Workload == "Wakeup":
		return notCountableRealWait
	case strings.HasPrefix(c.Variant, "impl=afterfunc"):
		return notCountableRuntimeTimers
	}
	return ""
}

// Uncounted is NotCountable(c) in a process that counts windows or
// lists benchmarks to size them (valgrind.Windows, valgrind.Sizing), and
// "" anywhere else: the harness skips such a case with that reason, so
// that a gate names it instead of counting noise.
func Uncounted(c Case) string {
	if !valgrind.Windows() && !valgrind.Sizing() {
		return ""
	}
	return NotCountable(c)
}
