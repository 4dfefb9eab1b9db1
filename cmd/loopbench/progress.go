package main

import (
	"fmt"
	"io"
	"os"

	"github.com/loopbench/loopbench/bench"
)

// progress shows which case runs, on a terminal only: a line rewritten in
// place. In a pipe it prints nothing.
type progress struct {
	w     io.Writer
	total int
	n     int
	on    bool
}

func newProgress(w io.Writer, total int) *progress {
	f, ok := w.(*os.File)
	on := false
	if ok {
		if st, err := f.Stat(); err == nil && st.Mode()&os.ModeCharDevice != 0 {
			on = true
		}
	}
	return &progress{w: w, total: total, on: on}
}

func (p *progress) step(round int, c bench.Case) {
	p.n++
	if p.on {
		fmt.Fprintf(p.w, "\r\033[K[%d/%d] round %d: %s/%s", p.n, p.total, round+1, c.Workload, c.Name())
	}
}

func (p *progress) done() {
	if p.on {
		fmt.Fprint(p.w, "\r\033[K")
	}
}
