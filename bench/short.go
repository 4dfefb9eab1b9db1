package bench

import "strings"

// nightlyOnly says c is left out of the pull-request set (Options.Short,
// go test -short): a Go runtime baseline, which a change to loopbench
// cannot regress; a case sized 10⁶, the costliest to count; or a case
// that cannot be counted at all (NotCountable: Wakeup, whose figure is how
// late a real wait ends, which timed on a shared runner is the runner's).
func nightlyOnly(c Case) bool {
	if NotCountable(c) != "" || strings.HasPrefix(c.Variant, "impl=") {
		return true
	}
	for _, kv := range strings.Split(c.Params, "/") {
		if _, v, _ := strings.Cut(kv, "="); v == "1000000" {
			return true
		}
	}
	return false
}
