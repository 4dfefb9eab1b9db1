//go:build !race

// Package raceflag says whether the binary was built with the race
// detector, for tests that run a smaller case under it (it slows pure
// computation about tenfold and finds nothing in one goroutine's
// arithmetic) or leave out a check it would disturb.
package raceflag

// Enabled: built with -race.
const Enabled = false
