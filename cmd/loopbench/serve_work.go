package main

import (
	"flag"
	"fmt"
	"time"

	"github.com/loopbench/loopbench/internal/harness/echo"
)

// serveWork is serve's -work and -size: the CPU time a loop server
// spends on every request, and the size of a request.
type serveWork struct {
	d    time.Duration
	size int
}

func addServeWorkFlags(fs *flag.FlagSet) *serveWork {
	w := &serveWork{}
	fs.DurationVar(&w.d, "work", 0, "spend this much CPU (a busy loop on the loop's thread, not a sleep) on every request before echoing it: a server of known capacity: 1/D requests/s per loop thread (0: none)")
	fs.IntVar(&w.size, "size", 1024, "with -work: the bytes of a request, load's -size (the work is spent once per this many bytes a connection receives); 0: once per read. With -proto http: the bytes of every response's body")
	return w
}

// check reports a usage error in the flags for the server chosen, or
// returns the work (nil for none).
func (w *serveWork) check(impl string, set map[string]bool) (*echo.Work, error) {
	switch {
	case w.d < 0:
		return nil, usageError{fmt.Sprintf("-work %v: want 0 (none) or more", w.d)}
	case w.size < 0:
		return nil, usageError{fmt.Sprintf("-size %d: want 0 (a read is a request) or more", w.size)}
	case set["size"] && w.d == 0:
		return nil, usageError{"-size needs -work"}
	case impl != "" && w.d > 0:
		return nil, usageError{fmt.Sprintf("-work applies to loop servers; -impl %s has none", impl)}
	case w.d == 0:
		return nil, nil
	}
	return &echo.Work{D: w.d, Size: w.size}, nil
}
