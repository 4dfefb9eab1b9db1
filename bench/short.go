package bench

import "strings"

// nightlyOnly says c is left out of the pull-request set (Options.Short,
// go test -short): a Go runtime baseline, which a change to loopbench
// cannot regress; a case sized 10⁶, the costliest to count; or a Wakeup
// case, whose figure is how late a real wait ends: its work is waiting on
// the real clock, which no virtual clock can stand in for, so counted
// under callgrind (some 50 times slower, by a varying amount) no two
// processes do the same work, and timed on a shared runner its lateness
// is the runner's.
func nightlyOnly(c Case) bool {
	if c.Workload == "Wakeup" || strings.HasPrefix(c.Variant, "impl=") {
		return true
	}
	for _, kv := range strings.Split(c.Params, "/") {
		if _, v, _ := strings.Cut(kv, "="); v == "1000000" {
			return true
		}
	}
	return false
}
