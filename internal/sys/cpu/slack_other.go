//go:build !linux

package cpu

// LowerTimerSlack does nothing here: only Linux has a per-thread timer
// slack (PR_SET_TIMERSLACK), which it sets to 1 ns there.
func LowerTimerSlack() error { return nil }
