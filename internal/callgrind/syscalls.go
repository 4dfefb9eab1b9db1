package callgrind

import (
	"bufio"
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
// ids carries the compressed function names, as for funcCost.
func goSyscalls(text string, ids map[string]string) (float64, error) {
	col, npos := -1, 1
	var sum []float64
	in, call := false, false
	sc := bufio.NewScanner(strings.NewReader(text))
	sc.Buffer(make([]byte, 1<<16), 1<<24)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case line == "":
		case strings.HasPrefix(line, "events:"):
			events := strings.Fields(strings.TrimPrefix(line, "events:"))
			col, sum = slices.Index(events, "sysCount"), make([]float64, len(events))
		case strings.HasPrefix(line, "positions:"):
			npos = max(1, len(strings.Fields(strings.TrimPrefix(line, "positions:"))))
		case strings.HasPrefix(line, "fn="):
			in = goSyscall(funcName(strings.TrimPrefix(line, "fn="), ids))
		case strings.HasPrefix(line, "cfn="), strings.HasPrefix(line, "cfni="):
			_, name, _ := strings.Cut(line, "=")
			funcName(name, ids) // a call's target may name an id
		case strings.HasPrefix(line, "calls="):
			call = true
		case isCostLine(line):
			ofCall := call
			call = false
			if !in || ofCall || col < 0 {
				break
			}
			f := strings.Fields(line)
			if len(f) <= npos+col {
				break // trailing zero counts are left out
			}
			if err := addCost(sum, f, npos); err != nil {
				return 0, err
			}
		}
	}
	if err := sc.Err(); err != nil || col < 0 {
		return 0, err
	}
	return sum[col], nil
}

// withGoSyscalls is c with its system calls those of Go code in text
// (goSyscalls).
func withGoSyscalls(c Counts, text string, ids map[string]string) (Counts, error) {
	n, err := goSyscalls(text, ids)
	c.SysCount = n
	return c, err
}
