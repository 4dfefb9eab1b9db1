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
// of syscallPackages: the system calls Go code made. Left out are the
// runtime's own (its monitor's sleeps, futex wake-ups, memory mappings),
// which follow wall time, and its clock reads, which valgrind turns into
// system calls by hiding the vDSO; and those callgrind books, with no
// function of those packages, on whatever the counted thread ran when
// another thread's call returned.
func (g *costGraph) goSyscalls() float64 {
	var sum []float64
	for fn, cost := range g.self {
		if goSyscall(fn) {
			sum = addTo(sum, cost)
		}
	}
	return countsOf(g.events, sum).SysCount
}

// withoutRuntime is total, a callgrind output file's counts, without what
// the runtime's monitor thread ran (returned too), and with Go code's
// system calls only: both read from one pass over text (ids as for
// scanCosts).
func withoutRuntime(total Counts, text string, ids map[string]string) (c, sysmon Counts, err error) {
	g, err := readGraph(text, ids)
	if err != nil {
		return Counts{}, Counts{}, err
	}
	sysmon = g.costOf(SysmonFunc)
	c = total.minus(sysmon)
	c.SysCount = g.goSyscalls()
	return c, sysmon, nil
}
