//go:build race

package valgrind_test

// raceEnabled: the race detector's runtime runs inside a window too.
const raceEnabled = true
