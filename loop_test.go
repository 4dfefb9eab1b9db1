package loopbench_test

import (
	"testing"

	"github.com/loopbench/loopbench"
	"github.com/loopbench/loopbench/internal/looptest"
)

// TestConformance runs the loop conformance suite on every variant in both
// timer-cancel modes.
func TestConformance(t *testing.T) {
	for _, cfg := range looptest.Configs() {
		t.Run(cfg.String(), func(t *testing.T) {
			t.Parallel()
			looptest.Run(t, cfg)
		})
	}
}

// TestTaskConformance runs the Future/Task suite on every variant in both
// timer-cancel modes.
func TestTaskConformance(t *testing.T) {
	for _, cfg := range looptest.Configs() {
		t.Run(cfg.String(), func(t *testing.T) {
			t.Parallel()
			looptest.RunTasks(t, cfg)
		})
	}
}

// TestCloseStopsTasks counts goroutines, so it runs alone, not in parallel.
func TestCloseStopsTasks(t *testing.T) {
	for _, cfg := range looptest.Configs() {
		t.Run(cfg.String(), func(t *testing.T) { looptest.CloseStopsTasks(t, cfg) })
	}
}

// TestNet runs the network suite on every variant in both timer-cancel
// modes.
func TestNet(t *testing.T) {
	for _, cfg := range looptest.Configs() {
		t.Run(cfg.String(), func(t *testing.T) {
			t.Parallel()
			looptest.RunNet(t, cfg)
		})
	}
}

// TestStreams runs the streams suite on every variant in both
// timer-cancel modes.
func TestStreams(t *testing.T) {
	for _, cfg := range looptest.Configs() {
		t.Run(cfg.String(), func(t *testing.T) {
			t.Parallel()
			looptest.RunStreams(t, cfg)
		})
	}
}

// TestDatagrams runs the datagram suite on every variant in both
// timer-cancel modes.
func TestDatagrams(t *testing.T) {
	for _, cfg := range looptest.Configs() {
		t.Run(cfg.String(), func(t *testing.T) {
			t.Parallel()
			looptest.RunDatagrams(t, cfg)
		})
	}
}

// TestSignals runs the signal suite on every variant, one at a time: the
// signals go to the whole process.
func TestSignals(t *testing.T) {
	for _, cfg := range loopbench.Variants() {
		t.Run(cfg.String(), func(t *testing.T) { looptest.RunSignals(t, cfg) })
	}
}

// TestSubprocess runs the subprocess suite on every variant, one at a
// time: it counts the process's fds.
func TestSubprocess(t *testing.T) {
	for _, cfg := range looptest.Configs() {
		t.Run(cfg.String(), func(t *testing.T) { looptest.RunSubprocess(t, cfg) })
	}
}

// TestNetLeavesNothing counts fds and goroutines, so it runs alone.
func TestNetLeavesNothing(t *testing.T) {
	for _, cfg := range loopbench.Variants() {
		t.Run(cfg.String(), func(t *testing.T) { looptest.NetLeavesNothing(t, cfg) })
	}
}

// TestCoordination runs the coordination suite (locks, queues, task
// groups, wait, timeouts) on every variant in both timer-cancel modes.
func TestCoordination(t *testing.T) {
	looptest.WakeInvariant = loopbench.WakeInvariant
	for _, cfg := range looptest.Configs() {
		t.Run(cfg.String(), func(t *testing.T) {
			t.Parallel()
			looptest.RunCoordination(t, cfg)
		})
	}
}

// TestDialLeavesNothing counts fds and goroutines, so it runs alone.
func TestDialLeavesNothing(t *testing.T) {
	for _, cfg := range loopbench.Variants() {
		t.Run(cfg.String(), func(t *testing.T) { looptest.DialLeavesNothing(t, cfg) })
	}
}
