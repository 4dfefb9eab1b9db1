//go:build !linux

package bench

// addSleepWakeup adds nothing here: the floor is clock_nanosleep with
// Linux's per-thread timer slack.
func addSleepWakeup(func(Case)) {}
