package bench

import (
	"slices"
	"strings"

	"github.com/loopbench/loopbench"
	"github.com/loopbench/loopbench/internal/measure/valgrind"
)

// Reasons a case is not counted in callgrind windows (NotCountable).
const (
	notCountableRuntimeTimers = "not countable: Go's runtime timers follow the real clock, which no window holds still; judge it by wall time"
	notCountableRealWait      = "not countable: its work is a wait on the real clock; judge it by wall time"
	notCountableUringWait     = "not countable: valgrind keeps every other thread stopped while one waits in io_uring_enter, so a uring loop waiting for another thread or process never wakes; judge it by wall time"
)

// waitsOnOthers are the workloads whose loop waits in its selector for
// what another thread or process does: a client, a signal, a child.
var waitsOnOthers = []string{"Echo", "UDPEcho", "Signal", "Subprocess"}

// NotCountable says why case c is not counted in callgrind windows, or
// "" when it is. Go's runtime timers (impl=afterfunc and
// impl=afterfunc-reset) run on the runtime's own time-driven paths,
// which no virtual clock reaches, and Wakeup's work is the real wait:
// under callgrind, some 50 times slower by a varying amount, no two
// processes of them do the same work. Valgrind (3.19) holds the lock
// that lets one thread run at a time through io_uring_enter, so a uring
// selector's wait for another thread's write, a signal or a child's exit
// never ends there.
func NotCountable(c Case) string {
	switch {
	case c.Workload == "Wakeup":
		return notCountableRealWait
	case strings.HasPrefix(c.Variant, "impl=afterfunc"):
		return notCountableRuntimeTimers
	case slices.Contains(waitsOnOthers, c.Workload) && onUring(c):
		return notCountableUringWait
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

// onUring says c runs on a loop with the uring selector.
func onUring(c Case) bool {
	cfg, err := loopbench.ParseVariant(c.Variant)
	return err == nil && cfg.Selector == "uring"
}
