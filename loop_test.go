package loopbench_test

import (
	"testing"

	"github.com/loopbench/loopbench"
	"github.com/loopbench/loopbench/internal/looptest"
)

// TestLoop runs every conformance suite of the loop (looptest.Suites) on
// its variants: each suite is a subtest, each configuration one below it.
func TestLoop(t *testing.T) {
	looptest.WakeInvariant = loopbench.WakeInvariant
	looptest.RunSuites(t)
}
