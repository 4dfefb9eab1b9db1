package load

import (
	"os"
	"runtime"
	"sync"
)

// procs counts the open-loop runs that hold a GOMAXPROCS reservation,
// and what GOMAXPROCS was before the first of them.
var procs struct {
	sync.Mutex
	users int
	prev  int
}

// reserveProcs raises GOMAXPROCS to what an open-loop run of conns
// connections needs (procsFor) and returns the function that ends the
// reservation. When the last reservation ends and GOMAXPROCS is not what
// it was, it goes back: to the runtime's default, which follows the CPUs
// the process may use (a generator pinned with -cpu), unless the
// GOMAXPROCS environment variable set it.
func reserveProcs(conns int) (release func()) {
	procs.Lock()
	defer procs.Unlock()
	cur := runtime.GOMAXPROCS(0)
	if procs.users == 0 {
		procs.prev = cur
	}
	procs.users++
	if want := procsFor(conns, cur); want > cur {
		runtime.GOMAXPROCS(want)
	}
	return func() {
		procs.Lock()
		defer procs.Unlock()
		procs.users--
		if procs.users > 0 || runtime.GOMAXPROCS(0) == procs.prev {
			return
		}
		if os.Getenv("GOMAXPROCS") == "" {
			runtime.SetDefaultGOMAXPROCS()
			return
		}
		runtime.GOMAXPROCS(procs.prev)
	}
}
