//go:build !linux

package bench

// addSignalfdBaseline adds nothing: signalfd is Linux's, so elsewhere the
// Signal workload runs without its same-binary baseline.
func addSignalfdBaseline(func(Case)) {}
