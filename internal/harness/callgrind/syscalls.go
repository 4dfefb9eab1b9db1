package callgrind

import (
	"slices"
	"strings"
)

// syscallPackages are the packages through which Go code, not the
// runtime, makes system calls on Linux: their functions (Syscall6,
// rawSyscallNoError, x/sys/unix's assembly) issue the calls a program
// makes natively too.
var syscallPackages = []string{"syscall.", "internal/runtime/syscall/", "runtime/internal/syscall.", "golang.org/x/sys/unix."}

// goSyscall says the function named name is in one of syscallPackages.
func goSyscall(name string) bool {
	return slices.ContainsFunc(syscallPackages, func(p string) bool { return strings.HasPrefix(name, p) })
}

// goSyscalls sums the system calls booked to the own lines of functions
// of syscallPackages in a callgrind output file: the system calls Go code
// made. Left out are the runtime's own (its monitor's sleeps, futex
// wake-ups, memory mappings), which follow wall time, and its clock
// reads, which valgrind turns into system calls by hiding the vDSO;
// and those callgrind books, with no function of those packages, on
// whatever the counted thread ran when another thread's call returned.
// ids carries the compressed function names, as for scanCosts.
func goSyscalls(text string, ids map[string]string) (float64, error) {
	c, err := sumCosts(text, ids, func(l costLine) bool { return l.callee == "" && goSyscall(l.fn) })
	return c.SysCount, err
}

// withGoSyscalls is c with its system calls those of Go code in text
// (goSyscalls).
func withGoSyscalls(c Counts, text string, ids map[string]string) (Counts, error) {
	n, err := goSyscalls(text, ids)
	c.SysCount = n
	return c, err
}
