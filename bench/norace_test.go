//go:build !race

package bench_test

// raceEnabled: TestOutputParses runs the pull-request set under the race
// detector.
const raceEnabled = false
