package main

import (
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/loopbench/loopbench/internal/harness/load"
	"github.com/loopbench/loopbench/internal/sys/cpu"
)

// TestPinKeepsASpareP: pinning (here to every CPU the process may
// already use, so the affinity does not change) sets GOMAXPROCS to one
// more than the CPUs, so that a loop blocked in its selector keeps its P.
func TestPinKeepsASpareP(t *testing.T) {
	allowed, err := cpu.Allowed()
	if err != nil {
		t.Skip(err)
	}
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	list := make([]string, len(allowed))
	for i, c := range allowed {
		list[i] = strconv.Itoa(c)
	}
	if err := pin(strings.Join(list, ",")); err != nil {
		t.Fatal(err)
	}
	if got := runtime.GOMAXPROCS(0); got != len(allowed)+1 {
		t.Fatalf("GOMAXPROCS %d after pinning to %d CPUs, want %d", got, len(allowed), len(allowed)+1)
	}
	if got := load.UsableCPUs(); got != len(allowed) {
		t.Fatalf("load.UsableCPUs %d, want the %d pinned", got, len(allowed))
	}
}
