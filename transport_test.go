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

// TestTLS runs the TLS suite on every variant in both timer-cancel modes.
func TestTLS(t *testing.T) {
	for _, cfg := range looptest.Configs() {
		t.Run(cfg.String(), func(t *testing.T) {
			t.Parallel()
			looptest.RunTLS(t, cfg)
		})
	}
}

// TestTLSFlow runs the TLS flow-control suite (16 MiB each way, four
// times) on every variant; the timer-cancel mode does not touch the data
// path it exercises, so it runs in the default mode only.
func TestTLSFlow(t *testing.T) {
	for _, cfg := range loopbench.Variants() {
		t.Run(cfg.String(), func(t *testing.T) {
			t.Parallel()
			looptest.RunTLSFlow(t, cfg)
		})
	}
}

// TestTLSLeavesNothing counts fds and goroutines, so it runs alone.
func TestTLSLeavesNothing(t *testing.T) {
	for _, cfg := range loopbench.Variants() {
		t.Run(cfg.String(), func(t *testing.T) { looptest.TLSLeavesNothing(t, cfg) })
	}
}

// TestTLSInterop runs loopbench's TLS against Python's ssl, asyncio and
// OpenSSL on every variant in both timer-cancel modes.
func TestTLSInterop(t *testing.T) {
	for _, cfg := range looptest.Configs() {
		t.Run(cfg.String(), func(t *testing.T) {
			t.Parallel()
			looptest.RunTLSInterop(t, cfg)
		})
	}
}
