package bench

import "strings"

// nightlyOnly says c is left out of the pull-request set (Options.Short,
// go test -short): a Go runtime baseline, which a change to loopbench
// cannot regress, or a case sized 10⁶, the costliest to count.
func nightlyOnly(c Case) bool {
	if strings.HasPrefix(c.Variant, "impl=") {
		return true
	}
	for _, kv := range strings.Split(c.Params, "/") {
		if _, v, _ := strings.Cut(kv, "="); v == "1000000" {
			return true
		}
	}
	return false
}
