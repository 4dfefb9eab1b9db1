package loopbench_test

import (
	"testing"

	"github.com/loopbench/loopbench"
	"github.com/loopbench/loopbench/internal/looptest"
)

// TestFactoryPanicLeavesNoFd counts fds, so it runs alone.
func TestFactoryPanicLeavesNoFd(t *testing.T) {
	for _, cfg := range loopbench.Variants() {
		t.Run(cfg.String(), func(t *testing.T) { looptest.FactoryPanicLeavesNoFd(t, cfg) })
	}
}
