package valgrind

import (
	"fmt"
	"strconv"
	"strings"
)

// WindowPrefix starts the reason of each benchmark window's dump.
const WindowPrefix = "loopbench-window"

// WindowReason is the dump reason of a benchmark's window at n
// operations: "loopbench-window N=<n> <name>". A benchmark harness dumps
// its window with it and the gate finds the window by it.
func WindowReason(name string, n int) string {
	return fmt.Sprintf("%s N=%d %s", WindowPrefix, n, name)
}

// ParseWindowReason reads a reason WindowReason wrote.
func ParseWindowReason(reason string) (name string, n int, ok bool) {
	rest, ok := strings.CutPrefix(reason, WindowPrefix+" N=")
	if !ok {
		return "", 0, false
	}
	count, name, ok := strings.Cut(rest, " ")
	n, err := strconv.Atoi(count)
	return name, n, ok && err == nil && name != ""
}
